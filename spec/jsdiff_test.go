package spec_test

import (
	"bufio"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/spec/internal/vecgen"
	"github.com/tickettool/tickettool/token"
)

// TestJSVerifierAgrees is the differential test of the JavaScript verifier
// (js/): random and mutated tickets and requests, built from the vectors'
// (valid ones, one field changed, bytes flipped, blocks re-encoded and
// re-signed under the vector's HMAC key so that the chain still verifies,
// blocks dropped, reordered or duplicated) and random HMAC and Ed25519
// chains of random caveats, narrowing or not, decided by the Go verifier and
// by one long-lived node process running the built package; any
// disagreement fails. TICKETTOOL_JSDIFF_CASES sets the number of cases
// (default 4000) and TICKETTOOL_JSDIFF_SEED the seed. Without node or a
// built package (npm ci && npm run build in js/) it skips, and with
// CI=true it fails instead.
func TestJSVerifierAgrees(t *testing.T) {
	node, err := exec.LookPath("node")
	server, _ := filepath.Abs("../js/harness/diffserver.js")
	if _, serr := os.Stat("../js/dist/index.js"); err != nil || serr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node (%v) or the built JavaScript package (%v) missing", err, serr)
		}
		t.Skip("node or js/dist missing: run npm ci && npm run build in js/")
	}
	cases := envInt(t, "TICKETTOOL_JSDIFF_CASES", 4000)
	seed := uint64(envInt(t, "TICKETTOOL_JSDIFF_SEED", int(time.Now().UnixNano()%1e9)))
	t.Logf("%d cases, TICKETTOOL_JSDIFF_SEED=%d", cases, seed)
	f, _ := load(t)
	vectors, _ := filepath.Abs("vectors/tickets.json")
	cmd := exec.Command(node, server, vectors)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	g := newMutator(t, f, seed)
	type js struct {
		Vector  *vecgen.Vector  `json:"vector"`
		Request *vecgen.Request `json:"request"`
	}
	pending := make(chan js, 64)
	go func() {
		defer stdin.Close()
		enc := json.NewEncoder(stdin)
		for range cases {
			v, r := g.next()
			pending <- js{v, r}
			if enc.Encode(js{v, r}) != nil {
				break
			}
		}
		close(pending)
	}()
	in := bufio.NewReader(stdout)
	n, disagreements := 0, 0
	counts := map[string]int{}
	for c := range pending {
		line, err := in.ReadBytes('\n')
		if err != nil {
			t.Fatalf("node after %d cases: %v", n, err)
		}
		n++
		want, err := f.Outcome(c.Vector, c.Request)
		if err != nil {
			t.Fatalf("case %d: Go: %v", n, err)
		}
		counts[want.Expect]++
		if c.Vector.Name == "random" {
			what := want.Expect
			if len(want.Refusals) > 0 {
				what = "refused:" + want.Refusals[0].Check
			}
			counts["random "+c.Vector.Keyring[0]+" chain: "+what]++
		}
		for _, x := range want.Refusals {
			counts["refused:"+x.Check]++
		}
		var got vecgen.Request
		var jsErr struct{ Error string }
		_ = json.Unmarshal(line, &jsErr)
		if jsErr.Error != "" || json.Unmarshal(line, &got) != nil {
			t.Fatalf("case %d: node: %s", n, line)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(&got)
		if string(a) != string(b) {
			disagreements++
			if disagreements <= 10 {
				cj, _ := json.Marshal(c)
				t.Errorf("case %d disagrees:\n  go %s\n  js %s\n  case %s", n, a, b, cj)
			}
		}
	}
	if n != cases {
		t.Fatalf("%d of %d cases decided", n, cases)
	}
	t.Logf("%d cases, %d disagreements; outcomes %v", n, disagreements, counts)
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return n
}

// mutator draws cases: a vector's request, then up to three changes to the
// ticket, the request or the options, with values taken from other vectors.
type mutator struct {
	f     *vecgen.File
	rng   *rand.Rand
	seeds [][2]int // vector, request
	pool  []vecgen.Request
	root  *key.Signing // root-h, for random chains
	rootE *key.Signing // root-e
}

func newMutator(t *testing.T, f *vecgen.File, seed uint64) *mutator {
	m := &mutator{f: f, rng: rand.New(rand.NewPCG(seed, 0x6a73))}
	secret, _ := hex.DecodeString(f.Keys["root-h"].Secret)
	root, err := key.NewHMAC("root-h", secret)
	if err != nil {
		t.Fatal(err)
	}
	m.root = root
	eseed, _ := hex.DecodeString(f.Keys["root-e"].Seed)
	if m.rootE, err = key.NewEd25519("root-e", ed25519.NewKeyFromSeed(eseed)); err != nil {
		t.Fatal(err)
	}
	for i, v := range f.Vectors {
		if len(v.Requests) == 0 {
			m.seeds = append(m.seeds, [2]int{i, -1})
		}
		for j, r := range v.Requests {
			m.seeds = append(m.seeds, [2]int{i, j})
			m.pool = append(m.pool, r)
		}
	}
	return m
}

func (m *mutator) pick(n int) int { return m.rng.IntN(n) }

func (m *mutator) next() (*vecgen.Vector, *vecgen.Request) {
	if m.pick(4) == 0 {
		if v := m.random(); v != nil {
			r := m.pool[m.pick(len(m.pool))]
			clearExpect(&r)
			for k := m.pick(3); k > 0; k-- {
				m.request(&r)
			}
			return v, &r
		}
	}
	s := m.seeds[m.pick(len(m.seeds))]
	v := m.f.Vectors[s[0]]
	v.Requests, v.Intermediate, v.Discharges = nil, m.f.Vectors[s[0]].Intermediate, nil
	var r vecgen.Request
	if s[1] >= 0 {
		r = m.f.Vectors[s[0]].Requests[s[1]]
	} else {
		r = m.pool[m.pick(len(m.pool))]
	}
	clearExpect(&r)
	for k := m.pick(4); k > 0; k-- {
		switch m.pick(10) {
		case 0, 1, 2:
			m.ticket(&v)
		case 3:
			m.options(&v)
		default:
			m.request(&r)
		}
	}
	return &v, &r
}

// clearExpect drops what a vector expects of a request: the two verifiers
// are compared with each other, not with the file.
func clearExpect(r *vecgen.Request) {
	r.Expect, r.Refusals, r.BlockIDs, r.Budgets, r.Approvals, r.Discharge, r.Charge, r.Exhausted = "", nil, nil, nil, nil, nil, "", nil
}

// caveatTexts are the caveats random chains draw from: each kind's
// boundaries, in text form.
var caveatTexts = []string{
	"tools=read_file", "tools=read_file,write_file", "tools=ws/read_file", "tools=write_file", "tools=workspace/read_file",
	"ops=invoke", "ops=delegate,invoke", "ops=delegate", "ops=read",
	"paths=src/", "paths=src/discount/", "paths=/", "paths=/srv/app/", "paths=src/discount/,tests/", "paths=src/discount-other/",
	"hosts=*.example.org", "hosts=api.example.org", "hosts=*.api.example.org", "hosts=localhost", "hosts=1.2.3.4",
	"aud=workspace", "aud=other,workspace",
	"calls=1", "calls=5", "calls=18446744073709551615",
	"until=2026-11-30T12:00:00Z", "until=2026-11-30T13:00:00Z", "until=2026-11-30T11:59:59Z", "until=253402300799",
	"nbf=2026-11-30T12:00:00Z", "nbf=2026-11-30T12:00:01Z", "nbf=0",
	"cost=0.5USD", "cost=1EUR", "cost=5USD", "cost=18446744073709.551615USD",
	"total=5USD", "total=10USD", "total=1EUR", "total=0USD",
	"depth=0", "depth=1", "depth=3", "depth=18446744073709551615",
	`intent="upgrade pricing deps"`,
	"args=RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o", "args=dCNOmK_nSY-g-vrhdhdlkqJ4k4T5QrjyWsYB7cZ68z4",
}

// random mints a chain of 1 to 5 blocks of random caveats (narrowing or
// not) under root-h or root-e: block 0 as minted, later blocks cut from
// other mints, all re-signed (FORMAT.md §4.1, §4.2); an Ed25519 chain has
// fresh next keys, and now and then one damaged signature.
func (m *mutator) random() *vecgen.Vector {
	ed := m.pick(2) == 0
	root, id := m.root, "root-h"
	if ed {
		root, id = m.rootE, "root-e"
	}
	var blocks [][]byte
	for i := m.pick(5); i >= 0; i-- {
		b0 := m.mintBlock(root)
		if b0 == nil {
			return nil
		}
		if ed {
			b0 = b0[:len(b0)-35] // field 5, the next key, is set below
		}
		if blocks == nil {
			blocks = append(blocks, b0)
			continue
		}
		// Block 0 is a4|a5 01 0m 02 <key id> 03 50 <16 bytes> 04 <caveats> [05 ...].
		cut := 4 + 1 + len(id) + 2 + 16 + 1
		head := byte(0xa1)
		if ed {
			head = 0xa2
		}
		blocks = append(blocks, append([]byte{head, 0x04}, b0[cut:]...))
	}
	sealed := m.pick(4) == 0
	var data []byte
	if ed {
		data = m.ed25519Ticket(blocks, sealed)
	} else {
		secret, _ := hex.DecodeString(m.f.Keys["root-h"].Secret)
		data = hmacTicket(secret, blocks, sealed)
	}
	return &vecgen.Vector{Name: "random", Keyring: []string{id}, TicketHex: hex.EncodeToString(data),
		Ticket: "tkt1_" + b64.EncodeToString(data)}
}

// mintBlock mints a ticket of up to three random caveats (one per kind)
// and returns its block 0, or nil when the caveats do not mint.
func (m *mutator) mintBlock(root *key.Signing) []byte {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var texts []string
	seen := map[string]bool{}
	for k := m.pick(4); k > 0; k-- {
		c := caveatTexts[m.pick(len(caveatTexts))]
		if kind, _, _ := strings.Cut(c, "="); !seen[kind] {
			seen[kind] = true
			texts = append(texts, c)
		}
	}
	cs, err := caveat.ParseAll(texts, now)
	if err != nil {
		return nil
	}
	tk, err := token.Mint(root, cs, nil)
	if err != nil {
		return nil
	}
	return tk.UnverifiedBlocks()[0].Bytes()
}

// ed25519Ticket gives each block (without field 5) a fresh next key and
// signs the chain under root-e (FORMAT.md §4.2).
func (m *mutator) ed25519Ticket(blocks [][]byte, sealed bool) []byte {
	seed, _ := hex.DecodeString(m.f.Keys["root-e"].Seed)
	priv := ed25519.NewKeyFromSeed(seed)
	var sigs [][]byte
	prev := []byte{}
	for i := range blocks {
		kseed := make([]byte, 32)
		for j := range kseed {
			kseed[j] = byte(m.rng.Uint32())
		}
		next := ed25519.NewKeyFromSeed(kseed)
		b := append(append(append([]byte{}, blocks[i]...), 0x05, 0x58, 0x20), next.Public().(ed25519.PublicKey)...)
		blocks[i] = b
		sig := ed25519.Sign(priv, append(append([]byte("tickettool/v1 ed25519 block\x00"), prev...), b...))
		sigs = append(sigs, sig)
		prev, priv = sig, next
	}
	if m.pick(8) == 0 {
		sigs[m.pick(len(sigs))][m.pick(64)] ^= 1 << m.pick(8)
	}
	out := []byte{0xa4, 0x01, 0x01, 0x02}
	out = cborHead(out, 4, len(blocks))
	for _, b := range blocks {
		out = append(cborHead(out, 2, len(b)), b...)
	}
	out = cborHead(append(out, 0x03), 4, len(sigs))
	for _, sg := range sigs {
		out = append(append(out, 0x58, 0x40), sg...)
	}
	if sealed {
		seal := ed25519.Sign(priv, append([]byte("tickettool/v1 ed25519 seal\x00"), prev...))
		return append(append(out, 0x05, 0x58, 0x40), seal...)
	}
	return append(append(out, 0x04, 0x58, 0x20), priv.Seed()...)
}

func (m *mutator) options(v *vecgen.Vector) {
	o := vecgen.Options{}
	if v.Options != nil {
		o = *v.Options
	}
	switch m.pick(8) {
	case 0:
		o.SkewSeconds = int64(m.pick(7200)) - 60
	case 1:
		o.RequireHolder = !o.RequireHolder
	case 2:
		o.RequireExpiry = !o.RequireExpiry
	case 3:
		// At most 100 years: the Go options hold a time.Duration.
		o.MaxLifetimeSeconds = []int64{0, 1, 60, 3600, 86400, 100 * 365 * 86400}[m.pick(6)]
	case 4:
		if im := v.Intermediate; im != nil {
			o.Revoked = []string{im.BlockIDs[m.pick(len(im.BlockIDs))]}
		}
	case 5:
		o.Modes = [][]string{nil, {"hmac"}, {"ed25519"}, {"ed25519", "hmac"}}[m.pick(4)]
	case 6:
		o.DPoPAlgorithms = [][]string{nil, {"ES256"}, {"EdDSA"}}[m.pick(3)]
	case 7:
		o.DPoPMaxAgeSeconds, o.DPoPFutureSkewSeconds = int64(m.pick(1000)), int64(m.pick(400))
	}
	v.Options = &o
}

func (m *mutator) request(r *vecgen.Request) {
	o := m.pool[m.pick(len(m.pool))]
	switch m.pick(12) {
	case 0:
		r.Tool = []string{o.Tool, "", "read_file", "ws/read_file", "a/b/c", "x y"}[m.pick(6)]
	case 1:
		r.Op = []string{o.Op, "", "invoke", "delegate", "Invoke"}[m.pick(5)]
	case 2:
		r.Paths = o.Paths
		if len(r.Paths) > 0 && m.pick(2) == 0 {
			r.Paths = append([]string{}, r.Paths...)
			r.Paths[0] += []string{"/", "/..", "/./x", "//y", " ", "\u200b", "\\x"}[m.pick(7)]
		}
	case 3:
		r.URLs = o.URLs
		if len(r.URLs) > 0 && m.pick(2) == 0 {
			r.URLs = append([]string{}, r.URLs...)
			r.URLs[0] = []string{"https://A.EXAMPLE.org./x", "https://u@api.example.org:0443/", "https://[::1]/", "https://a%41.example.org/",
				"https://api.example.org:99999/", "https://a_b.example.org/", "http://api.example.org:/"}[m.pick(7)]
		}
	case 4:
		r.Cost = []string{o.Cost, "", "0.5USD", "5USD", "1EUR", "0USD", "18446744073709.551615USD"}[m.pick(7)]
	case 5:
		r.Audience = []string{o.Audience, "", "workspace", "other"}[m.pick(4)]
	case 6:
		now, err := time.Parse(time.RFC3339, r.Now)
		if err == nil {
			d := []time.Duration{time.Millisecond, -time.Millisecond, time.Second, -time.Second, 30 * time.Second, 300 * time.Second,
				time.Hour, -time.Hour, 24 * time.Hour, 365 * 24 * time.Hour}[m.pick(10)]
			if t := now.Add(d); t.Year() <= 9999 {
				r.Now = t.Format(time.RFC3339Nano)
			}
		}
	case 7:
		r.Args = o.Args
		if m.pick(3) == 0 {
			b := make([]byte, 32)
			for i := range b {
				b[i] = byte(m.rng.Uint32())
			}
			r.Args = hex.EncodeToString(b)
		}
	case 8:
		r.DPoP = o.DPoP
		if r.DPoP != nil && m.pick(2) == 0 {
			d := *r.DPoP
			switch m.pick(4) {
			case 0:
				d.Proof = flipChar(m, d.Proof)
			case 1:
				d.Method = "GET"
			case 2:
				d.URI = []string{"MCP://Workspace/./read_file", "mcp://workspace/read_file?x#y", "mcp://workspace/read%5ffile", "mcp://u@workspace/read_file"}[m.pick(4)]
			case 3:
				d.Nonce = "n-" + strconv.Itoa(m.pick(3))
			}
			r.DPoP = &d
		}
	case 9:
		r.DPoP = nil
	case 10:
		r.Discharges = m.discharges(r.Discharges, o.Discharges)
	case 11:
		*r = o
		clearExpect(r)
	}
}

func (m *mutator) discharges(mine, other []string) []string {
	out := append([]string{}, mine...)
	switch m.pick(5) {
	case 0:
		if len(out) > 0 {
			out = out[1:]
		}
	case 1:
		if len(out) > 0 {
			out = append(out, out[0])
		}
	case 2:
		out = append(out, other...)
	case 3:
		if len(out) > 0 {
			out[0] = flipChar(m, out[0])
		}
	case 4:
		if len(out) > 1 {
			out[0], out[1] = out[1], out[0]
		}
	}
	return out
}

var b64 = base64.RawURLEncoding

func flipChar(m *mutator, s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	i := m.pick(len(b))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=. +/"
	b[i] = alphabet[m.pick(len(alphabet))]
	return string(b)
}

// ticket changes the ticket: its text, its bytes, or (HMAC tickets without
// holder signatures) its blocks, re-signed under the vector's key.
func (m *mutator) ticket(v *vecgen.Vector) {
	data, _ := hex.DecodeString(v.TicketHex)
	im := v.Intermediate
	key, hasKey := vecgen.Key{}, false
	if len(v.Keyring) > 0 {
		key, hasKey = m.f.Keys[v.Keyring[0]]
	}
	resign := im != nil && hasKey && key.Mode == "hmac" && len(data) > 0 && data[0] == 0xa3 && im.DerivedKey != ""
	switch k := m.pick(6); {
	case k == 0 && v.Ticket != "":
		v.Ticket = flipChar(m, v.Ticket)
		return
	case k == 1 && len(data) > 0:
		data = append([]byte{}, data...)
		data[m.pick(len(data))] ^= 1 << m.pick(8)
	case k == 2 && len(data) > 1:
		data = data[:m.pick(len(data))]
	case resign:
		blocks := make([][]byte, len(im.Blocks))
		for i, h := range im.Blocks {
			blocks[i], _ = hex.DecodeString(h)
		}
		blocks = m.blocks(blocks)
		secret, _ := hex.DecodeString(key.Secret)
		data = hmacTicket(secret, blocks, im.Seal != "")
		v.Intermediate = nil
	default:
		return
	}
	v.TicketHex = hex.EncodeToString(data)
	v.Ticket = "tkt1_" + b64.EncodeToString(data)
}

// blocks changes a chain's blocks: one byte, one integer re-encoded in a
// longer form, or the blocks dropped, reordered or duplicated.
func (m *mutator) blocks(bs [][]byte) [][]byte {
	bs = append([][]byte{}, bs...)
	i := m.pick(len(bs))
	b := append([]byte{}, bs[i]...)
	switch m.pick(6) {
	case 0, 1:
		b[m.pick(len(b))] ^= 1 << m.pick(8)
	case 2:
		// An argument below 24 written with one more byte.
		j := m.pick(len(b))
		if b[j]&0x1f < 24 && b[j]>>5 <= 5 {
			b = append(b[:j:j], append([]byte{b[j]&0xe0 | 24, b[j] & 0x1f}, b[j+1:]...)...)
		}
	case 3:
		if len(bs) > 1 {
			return bs[:len(bs)-1]
		}
	case 4:
		if len(bs) > 1 {
			j := m.pick(len(bs))
			bs[i], bs[j] = bs[j], bs[i]
			return bs
		}
	case 5:
		return append(bs, bs[len(bs)-1])
	}
	bs[i] = b
	return bs
}

// hmacTicket encodes an HMAC ticket of these blocks (FORMAT.md §2, §4.1),
// reading the ticket id from block 0 where the format puts it; a block 0
// too damaged to hold one gets a zero id (the chain then does not verify).
func hmacTicket(secret []byte, blocks [][]byte, sealed bool) []byte {
	id := make([]byte, 16)
	if b0 := blocks[0]; len(b0) > 0 {
		for j := 0; j+18 <= len(b0); j++ {
			if b0[j] == 0x03 && b0[j+1] == 0x50 {
				copy(id, b0[j+2:j+18])
				break
			}
		}
	}
	mac := func(k []byte, parts ...[]byte) []byte {
		h := hmac.New(sha256.New, k)
		for _, p := range parts {
			h.Write(p)
		}
		return h.Sum(nil)
	}
	tag := mac(secret, []byte("tickettool/v1 hmac key\x00"), id)
	for _, b := range blocks {
		tag = mac(tag, []byte("tickettool/v1 hmac block\x00"), b)
	}
	out := []byte{0xa3, 0x01, 0x01, 0x02}
	out = cborHead(out, 4, len(blocks))
	for _, b := range blocks {
		out = append(cborHead(out, 2, len(b)), b...)
	}
	if sealed {
		return append(append(out, 0x05, 0x58, 0x20), mac(tag, []byte("tickettool/v1 hmac seal\x00"))...)
	}
	return append(append(out, 0x04, 0x58, 0x20), tag...)
}

func cborHead(out []byte, major byte, n int) []byte {
	switch {
	case n < 24:
		return append(out, major<<5|byte(n))
	case n < 256:
		return append(out, major<<5|24, byte(n))
	default:
		return append(out, major<<5|25, byte(n>>8), byte(n))
	}
}
