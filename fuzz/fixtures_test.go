// Package fuzz is the black-box fuzz suite of tickettool: one fuzz target
// per decoder and parser, using only the public API. See README.md.
package fuzz

import (
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// now is the fixed clock of every target.
var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// The fixed keys. Everything is derived from internal/detrand, so seeds
// regenerate to the same bytes.
const (
	hmacKeyID = "fuzz-hmac"
	edKeyID   = "fuzz-ed25519"
	origin    = "example.com/receipts/fuzz"
	htm       = "POST"
	htu       = "mcp://workspace/read_file"
)

type fixedKeys struct {
	hmac, ed *key.Signing
	ring     *token.Keyring
	// holders: EdDSA holder keys (deterministic signatures, so the
	// generated seeds are byte-for-byte reproducible).
	alice, bob holder
	// receipt keys
	logEd, logHMAC *key.Signing
}

type holder struct {
	raw crypto.Signer // the private key, for signing by hand
	key *key.Holder
	jkt string
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var keys = func() *fixedKeys {
	k := &fixedKeys{
		hmac: must(rootKey("hmac root", hmacKeyID, key.HMACSHA256)),
		ed:   must(rootKey("ed25519 root", edKeyID, key.Ed25519)),
	}
	k.ring = must(token.NewKeyring(k.hmac.Verifying(), k.ed.Verifying()))
	k.alice = newHolder("alice")
	k.bob = newHolder("bob")
	seed := make([]byte, ed25519.SeedSize)
	detrand.New("fuzz receipt ed25519").Read(seed)
	k.logEd = must(key.NewEd25519("fuzz-receipts", ed25519.NewKeyFromSeed(seed)))
	secret := make([]byte, key.HMACBytes)
	detrand.New("fuzz receipt hmac").Read(secret)
	k.logHMAC = must(key.NewHMAC("fuzz-receipts-hmac", secret))
	return k
}()

func newHolder(name string) holder {
	h := must(holderKey("holder " + name))
	raw := must(fixedkey.HolderKey(key.Ed25519, "fuzz holder "+name)) // the same stream
	return holder{raw: raw, key: h, jkt: h.Thumbprint()}
}

// secretForms are renderings of the HMAC root secret that must never
// appear in an error or refusal.
var secretForms = func() []string {
	s := fixedkey.Secret(keys.hmac)
	return []string{hex.EncodeToString(s), base64.RawURLEncoding.EncodeToString(s), base64.StdEncoding.EncodeToString(s), string(s)}
}()

// The public APIs take no randomness, and the seeds are made
// at package initialisation, outside any test, so
// testing/cryptotest.SetGlobalRandom cannot serve. Like the spec vector
// generator, the fixtures instead fix internal/randsrc to the detrand
// stream "fuzz "+seed while each key or ticket is made. Nothing runs in
// parallel with package initialisation.
func fixed(seed string) (restore func()) { return randsrc.Fix(detrand.New("fuzz " + seed)) }

func rootKey(seed, id string, mode key.Alg) (*key.Signing, error) {
	defer fixed(seed)()
	return key.Generate(mode, id)
}

func holderKey(seed string) (*key.Holder, error) {
	defer fixed(seed)()
	return key.GenerateHolder(key.Ed25519)
}

func mint(seed string, key *key.Signing, cs []caveat.Caveat) (*token.Ticket, error) {
	defer fixed(seed)()
	return token.Mint(key, cs, nil)
}

func attenuate(seed string, t *token.Ticket, cs []caveat.Caveat, opts *token.Options) (*token.Ticket, error) {
	defer fixed(seed)()
	return t.Attenuate(cs, opts)
}

func cavs(texts ...string) []caveat.Caveat {
	return must(caveat.ParseAll(texts, now))
}

// scenario is the README's delegation story: a broad block 0, then two
// narrowing blocks.
var scenario = [][]string{
	{"tools=read_file,write_file", "ops=delegate,invoke", "paths=src/", "hosts=*.example.org,api.example.com",
		"until=2026-11-30T13:00:00Z", "nbf=2026-11-30T11:00:00Z", "aud=workspace", "calls=100", "cost=0.5USD",
		"total=5USD", "depth=4", `intent="upgrade pricing deps"`},
	{"tools=read_file", "paths=src/discount/", "calls=10"},
	{"until=2026-11-30T12:30:00Z", "hosts=api.example.com"},
}

// chainOf mints with key and appends one block per further element.
func chainOf(key *key.Signing, seed string, blocks ...[]string) *token.Ticket {
	tk := must(mint(seed+" mint", key, cavs(blocks[0]...)))
	for i, b := range blocks[1:] {
		tk = must(attenuate(fmt.Sprintf("%s attenuate %d", seed, i), tk, cavs(b...), nil))
	}
	return tk
}

// baseRequest is allowed by every case of verifyCases.
func baseRequest() *caveat.Request {
	return &caveat.Request{
		Tool: "read_file", Op: "invoke", Paths: []string{"src/discount/rules.go"},
		URLs: []string{"https://api.example.com/v1/prices"}, Cost: &caveat.Amount{Micros: 100000, Currency: "USD"},
		Audience: "workspace",
	}
}

func proofFor(h holder, tk *token.Ticket, jti string) *caveat.HolderProof {
	p := must(dpop.Make(h.key, htm, htu, dpop.MakeOptions{AccessToken: tk.String(), IssuedAt: now, JTI: jti}))
	return &caveat.HolderProof{Proof: p, Method: htm, URI: htu}
}

// verifyCase is a valid ticket and a request it is allowed for at now.
type verifyCase struct {
	name string
	tk   *token.Ticket
	req  *caveat.Request
}

// verifyCases are the fixed valid tickets of FuzzVerify: both modes,
// sealed and unsealed, bound to a holder and rebound to another.
var verifyCases = func() []verifyCase {
	var cs []verifyCase
	for _, m := range []struct {
		name string
		key  *key.Signing
	}{{"hmac", keys.hmac}, {"ed25519", keys.ed}} {
		tk := chainOf(m.key, m.name, scenario...)
		cs = append(cs, verifyCase{m.name + "-unsealed", tk, baseRequest()})
		cs = append(cs, verifyCase{m.name + "-sealed", must(tk.Seal()), baseRequest()})
		bound := must(attenuate(m.name+" bind", tk, []caveat.Caveat{must(caveat.NewHolder(keys.alice.jkt))}, nil))
		r := baseRequest()
		r.Holder = proofFor(keys.alice, bound, "jti-"+m.name+"-bound")
		cs = append(cs, verifyCase{m.name + "-bound", bound, r})
		rebound := must(attenuate(m.name+" rebind", bound, []caveat.Caveat{must(caveat.NewHolder(keys.bob.jkt))},
			&token.Options{Holder: keys.alice.key}))
		rebound = must(rebound.Seal())
		r = baseRequest()
		r.Holder = proofFor(keys.bob, rebound, "jti-"+m.name+"-rebound")
		cs = append(cs, verifyCase{m.name + "-rebound-sealed", rebound, r})
	}
	return cs
}()

// mutate returns a copy of b with b[off mod len] ^= x, and whether it
// differs from b.
func mutate(b []byte, off uint64, x byte) ([]byte, bool) {
	c := append([]byte(nil), b...)
	if len(c) == 0 || x == 0 {
		return c, false
	}
	c[off%uint64(len(c))] ^= x
	return c, true
}

func pick[T any](s []T, i byte) T { return s[int(i)%len(s)] }

// fatalIfSecret fails if s contains the HMAC root secret in any form.
func fatalIfSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, f := range secretForms {
		if len(f) > 0 && strings.Contains(s, f) {
			t.Fatalf("%s reveals the root secret: %q", what, s)
		}
	}
}
