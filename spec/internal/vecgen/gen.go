package vecgen

import (
	"crypto"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// Now is the time every vector is minted at.
var Now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

type gen struct {
	file         File
	keys         map[string]*key.Signing
	holders      map[string]crypto.Signer // private keys, for signing by hand
	holderOfName map[string]*key.Holder
	approvers    map[string]*key.Signing
	err          error
}

// Generate returns the vectors file, byte for byte as committed.
func Generate() ([]byte, error) {
	g := &gen{keys: map[string]*key.Signing{}, holders: map[string]crypto.Signer{}, holderOfName: map[string]*key.Holder{}}
	g.file = File{
		Description: "tickettool ticket format v1 test vectors (spec/FORMAT.md). Every key and random value " +
			"is fixed; `go generate ./spec` regenerates this file byte for byte. Run them as spec/README.md says.",
		ErrorClasses: map[string]string{
			"malformed": "decoding (text or CBOR) must fail: Go token.ErrMalformed; as a request's expect, one of its discharges does not decode (or there are more than 8)",
			"refused":   "the ticket decodes but the verifier refuses the request; each refusal names a check (Go verify.Check: key, mode, chain, attenuation, revoked, policy, caveat, approval, dpop), a block (-1: none) and a caveat kind",
		},
		Keys: map[string]Key{}, Holders: map[string]Holder{},
	}
	g.rootKeys()
	g.holderKeys()
	g.valid()
	g.forged()
	g.kinds()
	g.attenuation()
	g.policy()
	g.smallOrderKeys()
	g.proofs()
	g.rebinding()
	g.values()
	g.malformed()
	if g.err != nil {
		return nil, g.err
	}
	g.approverKeys()
	g.approvalVectors()
	g.thresholdVectors()
	g.argsCases()
	if g.err != nil {
		return nil, g.err
	}
	out, err := json.MarshalIndent(g.file, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func (g *gen) fail(err error) {
	if g.err == nil && err != nil {
		g.err = err
	}
}

func (g *gen) rootKeys() {
	h, err := rootKey("spec hmac root", "root-h", key.HMACSHA256)
	g.fail(err)
	e, err := rootKey("spec ed25519 root", "root-e", key.Ed25519)
	g.fail(err)
	if g.err != nil {
		return
	}
	g.keys["root-h"], g.keys["root-e"] = h, e
	g.file.Keys["root-h"] = Key{Mode: "hmac", Secret: hex.EncodeToString(fixedkey.Secret(h))}
	g.file.Keys["root-e"] = Key{Mode: "ed25519", Seed: hex.EncodeToString(ed25519.PrivateKey(fixedkey.Secret(e)).Seed()),
		Public: hex.EncodeToString(fixedkey.Public(e.Verifying()))}
}

func (g *gen) holderKeys() {
	for _, name := range []string{"alice", "bob", "mallory", "carol"} {
		alg, jws := key.Ed25519, jose.EdDSA
		if name == "carol" {
			alg, jws = key.ES256, jose.ES256
		}
		k, h, err := holderKey("spec holder "+name, alg)
		g.fail(err)
		if err != nil {
			return
		}
		priv, err := jose.JSONWebKey{Key: k, Algorithm: string(jws)}.MarshalJSON()
		g.fail(err)
		g.holders[name], g.holderOfName[name] = k, h
		g.file.Holders[name] = Holder{PrivateJWK: string(priv), PublicJWK: string(h.Public().JWK()), JKT: h.Thumbprint()}
	}
}

func (g *gen) caveats(texts ...string) []caveat.Caveat {
	cs, err := caveat.ParseAll(texts, Now)
	g.fail(err)
	return cs
}

func (g *gen) bind(name string) caveat.Caveat {
	c, err := caveat.NewHolder(g.file.Holders[name].JKT)
	g.fail(err)
	return c
}

// mint builds a ticket under key from blocks of caveats.
func (g *gen) mint(name, key string, blocks ...[]caveat.Caveat) *token.Ticket {
	if g.err != nil {
		return nil
	}
	t, err := mintFixed(name, g.keys[key], blocks[0], nil)
	g.fail(err)
	for i, b := range blocks[1:] {
		if g.err != nil {
			return nil
		}
		t, err = attenuateFixed(fmt.Sprint(name, " block ", i+1), t, b, nil)
		g.fail(err)
	}
	return t
}

// add records a vector for a ticket that decodes, checking each request's
// expectation against the Go verifier.
func (g *gen) add(v Vector, t *token.Ticket, key string, withIntermediate bool) {
	if g.err != nil || t == nil {
		return
	}
	v.TicketHex = hex.EncodeToString(t.Encode())
	v.Ticket = t.String()
	if v.Keyring == nil {
		v.Keyring = []string{key}
	}
	if withIntermediate {
		im, err := intermediate(t.Encode(), g.keys[key])
		if err != nil {
			g.fail(fmt.Errorf("vecgen: %s: %w", v.Name, err))
			return
		}
		if im.Bindings, err = bindings(im, t); err != nil {
			g.fail(fmt.Errorf("vecgen: %s: %w", v.Name, err))
			return
		}
		v.Intermediate = im
	}
	v.Requests = slices.Clone(v.Requests) // shared by several vectors; filled in below
	if err := g.expectCarried(&v, t, key); err != nil {
		g.fail(fmt.Errorf("vecgen: %s: %w", v.Name, err))
		return
	}
	for i := range v.Requests {
		if err := expectApprovals(&v, &v.Requests[i]); err != nil {
			g.fail(fmt.Errorf("vecgen: %s: %w", v.Name, err))
			return
		}
	}
	if v.Sequence {
		g.fail(expectCharges(&v))
	}
	g.fail(g.checkRequests(&v))
	g.file.Vectors = append(g.file.Vectors, v)
}

// proof makes holder's DPoP proof for t.
func (g *gen) proof(holder string, t *token.Ticket, jti string) *DPoP {
	if g.err != nil {
		return nil
	}
	p, err := dpop.Make(g.holderOfName[holder], "POST", "mcp://workspace/read_file",
		dpop.MakeOptions{AccessToken: t.String(), IssuedAt: Now, JTI: jti})
	g.fail(err)
	return &DPoP{Proof: p, Method: "POST", URI: "mcp://workspace/read_file"}
}

func (g *gen) signer(name string) *key.Holder {
	return g.holderOfName[name]
}
