package bench

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/biscuit-auth/biscuit-go/v2"
	"github.com/biscuit-auth/biscuit-go/v2/datalog"
	"github.com/biscuit-auth/biscuit-go/v2/parser"
	sfmacaroon "github.com/superfly/macaroon"
	"github.com/superfly/macaroon/resset"
	macaroon "gopkg.in/macaroon.v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// The scenario, the same for every library: a root token with one resource
// caveat (the tools read_file and write_file), attenuated with three more
// caveats (an expiry, an allowed-operations list, a path prefix), encoded,
// then decoded and fully verified against one request at a fixed time.
var (
	t0     = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) // "now" of every request
	expiry = time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC) // the expiry caveat

	tools    = []string{"read_file", "write_file"}
	ops      = []string{"delegate", "invoke"} // delegate: tickettool refuses a block after ops without it
	prefix   = "src/discount/"
	htm, htu = "POST", "mcp://workspace/read_file" // what a DPoP proof for a tool call is bound to
)

// request is one call, in terms every library can express.
type request struct {
	Tool, Op, Path string
	Now            time.Time
}

var inScope = request{Tool: "read_file", Op: "invoke", Path: "src/discount/rules.go", Now: t0}

// library is one implementation of the scenario.
type library interface {
	name() string
	// mint mints the root token, attenuates it three times and returns
	// its serialized (wire) form.
	mint() ([]byte, error)
	// size is the size in bytes of the token's binary encoding.
	size(enc []byte) int
	// verifier converts req to the library's own form (outside any timed
	// loop) and returns a function that decodes enc from its serialized
	// form and fully verifies it against req: nil means allowed.
	verifier(tb testing.TB, enc []byte, req request) func() error
}

// libraries returns every library of the comparison, in report order.
func libraries(tb testing.TB) []library {
	return []library{
		newTickettool(tb, key.HMACSHA256, false),
		newTickettool(tb, key.Ed25519, false),
		newTickettool(tb, key.HMACSHA256, true),
		newMacaroonV2(),
		newMacaroonBakery(),
		newSuperfly(),
		newBiscuit(tb),
	}
}

// must(f())(tb) returns f's value, failing tb on f's error.
func must[T any](v T, err error) func(tb testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

// fixedBytes returns n deterministic bytes for fixed keys.
func fixedBytes(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i)*7
	}
	return b
}

// ---------------------------------------------------------------- tickettool

type tickettool struct {
	mode    key.Alg
	key     *key.Signing
	keys    *token.Keyring
	holder  *key.Holder // set for the DPoP-bound variant
	block0  []caveat.Caveat
	attenua [][]caveat.Caveat
}

func newTickettool(tb testing.TB, mode key.Alg, bound bool) *tickettool {
	var root *key.Signing
	if mode == key.HMACSHA256 {
		root = must(key.NewHMAC("root", fixedBytes(key.HMACBytes, 1)))(tb)
	} else {
		root = must(key.NewEd25519("root", ed25519.NewKeyFromSeed(fixedBytes(ed25519.SeedSize, 2))))(tb)
	}
	tt := &tickettool{
		mode:   mode,
		key:    root,
		keys:   must(token.NewKeyring(root.Verifying()))(tb),
		block0: []caveat.Caveat{must(caveat.NewTools(tools...))(tb)},
		attenua: [][]caveat.Caveat{
			{must(caveat.NewUntil(expiry))(tb)},
			{must(caveat.NewOps(ops...))(tb)},
			{must(caveat.NewPaths(prefix))(tb)},
		},
	}
	if bound {
		tt.holder = must(key.GenerateHolder(key.ES256))(tb)
		tt.block0 = append(tt.block0, must(caveat.NewHolder(tt.holder.Thumbprint()))(tb))
	}
	return tt
}

func (tt *tickettool) name() string {
	n := "tickettool-" + tt.mode.String()
	if tt.holder != nil {
		n += "-dpop"
	}
	return n
}

func (tt *tickettool) mint() ([]byte, error) {
	t, err := token.Mint(tt.key, tt.block0, nil)
	if err != nil {
		return nil, err
	}
	for _, cs := range tt.attenua {
		if t, err = t.Attenuate(cs, nil); err != nil {
			return nil, err
		}
	}
	return []byte(t.String()), nil
}

func (tt *tickettool) size(enc []byte) int {
	t, err := token.Parse(string(enc))
	if err != nil {
		return -1
	}
	return len(t.Encode())
}

// proof returns a DPoP proof for req by the bound variant's holder, made
// once (outside any timed loop). The replay cache is the caller's: the
// benchmark presents the same proof again and again.
func (tt *tickettool) proof(tb testing.TB, text string, req request) string {
	return must(dpop.Make(tt.holder, htm, htu, dpop.MakeOptions{
		AccessToken: text, IssuedAt: req.Now, JTI: "bench-proof-1",
	}))(tb)
}

func (tt *tickettool) verifier(tb testing.TB, enc []byte, req request) func() error {
	text := string(enc)
	r := &caveat.Request{Tool: req.Tool, Op: req.Op, Paths: []string{req.Path}}
	if tt.holder != nil {
		r.Holder = &caveat.HolderProof{Proof: tt.proof(tb, text, req), Method: htm, URI: htu}
	}
	return ttVerifier(text, r, tt.keys, req.Now)
}

// ttVerifier is tickettool's full verify of the text form:
// verify.VerifyText (the strict parse into pooled memory, key lookup,
// chain, narrowing, policy, every caveat, the DPoP proof of a bound
// ticket), with Decisions kept across calls as a server keeps one per
// worker (a pool, since RunParallel's goroutines share the function).
// token.Parse + verify.Verify decides alike and allocates more (verify's
// TestPropVerifyTextMatchesVerify). It verifies as a stateless verifier
// does, the peers' way (verify.Options.NoBlockIDs: no block ids, which
// only revocation, budgets and receipts need; with them:
// ttVerifierWithIDs).
func ttVerifier(text string, r *caveat.Request, keys *token.Keyring, now time.Time) func() error {
	return ttVerify(text, r, keys, now, &verify.Options{NoBlockIDs: true})
}

// ttVerifierWithIDs is ttVerifier with the block ids computed, as the
// guard asks for them.
func ttVerifierWithIDs(text string, r *caveat.Request, keys *token.Keyring, now time.Time) func() error {
	return ttVerify(text, r, keys, now, nil)
}

func ttVerify(text string, r *caveat.Request, keys *token.Keyring, now time.Time, opts *verify.Options) func() error {
	decisions := sync.Pool{New: func() any { return new(verify.Decision) }}
	return func() error {
		d := decisions.Get().(*verify.Decision)
		defer decisions.Put(d)
		if err := verify.VerifyText(d, text, r, keys, now, opts); err != nil {
			return err
		}
		return d.Err()
	}
}

// --------------------------------------------------------- gopkg.in/macaroon.v2

// macaroonV2 uses macaroon.v2 with first-party caveats checked in its
// idiomatic Verify(rootKey, check, discharges) style, by a hand-written
// check function (not the bakery's checkers). The conditions follow the
// bakery's syntax ("time-before RFC3339", "allow op op...").
type macaroonV2 struct {
	rootKey, id []byte
}

func newMacaroonV2() *macaroonV2 {
	// The id names the root key ("root") and carries a 16-byte nonce, as
	// tickettool's block 0 carries a key id and a 16-byte ticket id.
	return &macaroonV2{rootKey: fixedBytes(32, 3), id: append([]byte("root"), fixedBytes(16, 4)...)}
}

func (*macaroonV2) name() string        { return "macaroon.v2" }
func (*macaroonV2) size(enc []byte) int { return len(enc) }
func (m *macaroonV2) conditions() []string {
	return []string{
		"tools " + strings.Join(tools, " "),
		"time-before " + expiry.Format(time.RFC3339),
		"allow " + strings.Join(ops, " "),
		"path-prefix " + prefix,
	}
}

func (m *macaroonV2) mint() ([]byte, error) {
	mac, err := macaroon.New(m.rootKey, m.id, "", macaroon.V2)
	if err != nil {
		return nil, err
	}
	for _, c := range m.conditions() {
		if err := mac.AddFirstPartyCaveat([]byte(c)); err != nil {
			return nil, err
		}
	}
	return mac.MarshalBinary()
}

// listed reports whether s is one of the space-separated words of list.
func listed(list, s string) bool {
	for list != "" {
		var w string
		w, list, _ = strings.Cut(list, " ")
		if w == s {
			return true
		}
	}
	return false
}

func (m *macaroonV2) verifier(_ testing.TB, enc []byte, req request) func() error {
	check := func(cond string) error {
		name, arg, _ := strings.Cut(cond, " ")
		switch name {
		case "tools":
			if !listed(arg, req.Tool) {
				return fmt.Errorf("tool %q not allowed", req.Tool)
			}
		case "allow":
			if !listed(arg, req.Op) {
				return fmt.Errorf("op %q not allowed", req.Op)
			}
		case "time-before":
			t, err := time.Parse(time.RFC3339, arg)
			if err != nil {
				return err
			}
			if !req.Now.Before(t) {
				return errors.New("macaroon has expired")
			}
		case "path-prefix":
			if !strings.HasPrefix(req.Path, arg) {
				return fmt.Errorf("path %q not allowed", req.Path)
			}
		default:
			return fmt.Errorf("unknown caveat %q", name)
		}
		return nil
	}
	return m.decodeAndVerify(enc, check)
}

// decodeAndVerify returns the timed part of a macaroon.v2 verify: decode
// from the binary form, find the root key by id, verify with check.
func (m *macaroonV2) decodeAndVerify(enc []byte, check func(string) error) func() error {
	return func() error {
		var mac macaroon.Macaroon
		if err := mac.UnmarshalBinary(enc); err != nil {
			return err
		}
		if !bytes.HasPrefix(mac.Id(), []byte("root")) {
			return errors.New("unknown root key")
		}
		return mac.Verify(m.rootKey, check, nil)
	}
}

// ------------------------------------------------------ github.com/superfly/macaroon

// superfly uses fly.io's macaroons with typed caveats: its resset
// ResourceSet for the tools and the path prefixes, its ValidityWindow for
// the expiry, and a typed caveat holding the list of operations (resset's
// Action is an rwx bitmap, which has no "invoke"). Caveat type numbers are
// in the user-defined range, as the library asks of non-fly.io users.
type superfly struct {
	key sfmacaroon.SigningKey
	kid []byte
}

const (
	cavTools = sfmacaroon.CavMinUserDefined + iota
	cavOps
	cavPaths
)

type sfTools struct {
	Tools resset.ResourceSet[string] `json:"tools"`
}

type sfOps struct {
	Ops []string `json:"ops"`
}

type sfPaths struct {
	Paths resset.ResourceSet[resset.Prefix] `json:"paths"`
}

func init() {
	sfmacaroon.RegisterCaveatType(&sfTools{})
	sfmacaroon.RegisterCaveatType(&sfOps{})
	sfmacaroon.RegisterCaveatType(&sfPaths{})
}

func (*sfTools) CaveatType() sfmacaroon.CaveatType { return cavTools }
func (*sfTools) Name() string                      { return "TicketTools" }
func (c *sfTools) Prohibits(a sfmacaroon.Access) error {
	sa, ok := a.(*sfAccess)
	if !ok {
		return sfmacaroon.ErrInvalidAccess
	}
	return c.Tools.Prohibits(&sa.Tool, sa.Action)
}

func (*sfOps) CaveatType() sfmacaroon.CaveatType { return cavOps }
func (*sfOps) Name() string                      { return "TicketOps" }
func (c *sfOps) Prohibits(a sfmacaroon.Access) error {
	sa, ok := a.(*sfAccess)
	if !ok {
		return sfmacaroon.ErrInvalidAccess
	}
	if !slices.Contains(c.Ops, sa.Op) {
		return fmt.Errorf("%w: op %q", sfmacaroon.ErrUnauthorized, sa.Op)
	}
	return nil
}

func (*sfPaths) CaveatType() sfmacaroon.CaveatType { return cavPaths }
func (*sfPaths) Name() string                      { return "TicketPaths" }
func (c *sfPaths) Prohibits(a sfmacaroon.Access) error {
	sa, ok := a.(*sfAccess)
	if !ok {
		return sfmacaroon.ErrInvalidAccess
	}
	return c.Paths.Prohibits(&sa.Path, sa.Action)
}

// sfAccess is the request, as a macaroon.Access (and resset.Access).
type sfAccess struct {
	Tool   string
	Op     string
	Path   resset.Prefix
	Action resset.Action
	now    time.Time
}

func (a *sfAccess) Now() time.Time           { return a.now }
func (a *sfAccess) Validate() error          { return nil }
func (a *sfAccess) GetAction() resset.Action { return a.Action }
func newSuperfly() *superfly                 { return &superfly{key: fixedBytes(32, 5), kid: []byte("root")} }
func (*superfly) name() string               { return "superfly" }
func (*superfly) size(enc []byte) int        { return len(enc) }

func (s *superfly) mint() ([]byte, error) {
	m, err := sfmacaroon.New(s.kid, "", s.key)
	if err != nil {
		return nil, err
	}
	steps := []sfmacaroon.Caveat{
		&sfTools{Tools: resset.New(resset.ActionAll, tools...)},
		&sfmacaroon.ValidityWindow{NotBefore: t0.Add(-time.Hour).Unix(), NotAfter: expiry.Unix()},
		&sfOps{Ops: ops},
		&sfPaths{Paths: resset.New(resset.ActionAll, resset.Prefix(prefix))},
	}
	for _, c := range steps {
		if err := m.Add(c); err != nil {
			return nil, err
		}
	}
	return m.Encode()
}

func (s *superfly) verifier(_ testing.TB, enc []byte, req request) func() error {
	access := &sfAccess{Tool: req.Tool, Op: req.Op, Path: resset.Prefix(req.Path), Action: resset.ActionRead, now: req.Now}
	return func() error {
		m, err := sfmacaroon.Decode(enc)
		if err != nil {
			return err
		}
		if !bytes.Equal(m.Nonce.KID, s.kid) {
			return errors.New("unknown key id")
		}
		cs, err := m.Verify(s.key, nil, nil)
		if err != nil {
			return err
		}
		return cs.Validate(access)
	}
}

// ------------------------------------------------ github.com/biscuit-auth/biscuit-go/v2

// biscuit uses Biscuit v2 with one datalog check per block (the authority
// block checks the tool; each appended block adds one check) and an
// authorizer that states the request as facts and allows if every check
// holds.
type biscuitLib struct {
	root   ed25519.PrivateKey
	blocks []biscuit.ParsedBlock // authority first
	policy biscuit.Policy
}

func newBiscuit(tb testing.TB) *biscuitLib {
	src := []string{
		`check if tool($t), ["read_file", "write_file"].contains($t);`,
		`check if time($time), $time < ` + expiry.Format(time.RFC3339) + `;`,
		`check if operation($op), ["delegate", "invoke"].contains($op);`,
		`check if path($p), $p.starts_with("` + prefix + `");`,
	}
	l := &biscuitLib{
		root:   ed25519.NewKeyFromSeed(fixedBytes(ed25519.SeedSize, 6)),
		policy: must(parser.FromStringPolicy(`allow if true`))(tb),
	}
	for _, s := range src {
		l.blocks = append(l.blocks, must(parser.FromStringBlock(s))(tb))
	}
	return l
}

func (*biscuitLib) name() string        { return "biscuit" }
func (*biscuitLib) size(enc []byte) int { return len(enc) }

func (l *biscuitLib) mint() ([]byte, error) {
	bld := biscuit.NewBuilder(l.root)
	if err := bld.AddBlock(l.blocks[0]); err != nil {
		return nil, err
	}
	b, err := bld.Build()
	if err != nil {
		return nil, err
	}
	for _, pb := range l.blocks[1:] {
		bb := b.CreateBlock()
		if err := bb.AddBlock(pb); err != nil {
			return nil, err
		}
		if b, err = b.Append(rand.Reader, bb.Build()); err != nil {
			return nil, err
		}
	}
	return b.Serialize()
}

func fact(name string, t biscuit.Term) biscuit.Fact {
	return biscuit.Fact{Predicate: biscuit.Predicate{Name: name, IDs: []biscuit.Term{t}}}
}

func (l *biscuitLib) verifier(_ testing.TB, enc []byte, req request) func() error {
	facts := []biscuit.Fact{
		fact("tool", biscuit.String(req.Tool)),
		fact("operation", biscuit.String(req.Op)),
		fact("path", biscuit.String(req.Path)),
		fact("time", biscuit.Date(req.Now)),
	}
	pub := l.root.Public().(ed25519.PublicKey)
	// The default datalog time limit (2 ms) makes Authorize fail on this
	// shared, noisy machine; a longer limit changes no work done.
	limit := biscuit.WithWorldOptions(datalog.WithMaxDuration(time.Second))
	return func() error {
		b, err := biscuit.Unmarshal(enc)
		if err != nil {
			return err
		}
		a, err := b.Authorizer(pub, limit)
		if err != nil {
			return err
		}
		for _, f := range facts {
			a.AddFact(f)
		}
		a.AddPolicy(l.policy)
		return a.Authorize()
	}
}
