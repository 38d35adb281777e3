package fuzz

// The seed generator: every seed of testdata/fuzz/<Target>/, built
// deterministically from the fixed keys (internal/detrand), the fixed
// clock and the hand CBOR writer. TestWriteSeeds writes them;
// TestSeedsAreCurrent checks that the committed files are exactly these.

import (
	"bytes"
	"cmp"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// seed is one corpus file: a name and the fuzz arguments.
type seed struct {
	name string
	args []any
}

// targetNames lists the targets of this package, in the order of the issue.
var targetNames = []string{
	"FuzzParseText", "FuzzDecodeTicket", "FuzzDecodeBlock", "FuzzParseCaveat", "FuzzDecodeCaveatValue",
	"FuzzVerify", "FuzzCheckDPoP", "FuzzDecodeRecord", "FuzzVerifyLog", "FuzzCheckpoint",
}

// allSeeds generates every seed of every target (once per process).
var allSeeds = sync.OnceValue(func() map[string][]seed {
	tickets := ticketSeeds()
	return map[string][]seed{
		"FuzzParseText":         textSeeds(tickets),
		"FuzzDecodeTicket":      oneArg(tickets),
		"FuzzDecodeBlock":       blockSeeds(),
		"FuzzParseCaveat":       caveatTextSeeds(),
		"FuzzDecodeCaveatValue": caveatValueSeeds(),
		"FuzzVerify":            verifySeeds(tickets),
		"FuzzCheckDPoP":         dpopSeeds(),
		"FuzzDecodeRecord":      oneArg(recordSeeds()),
		"FuzzVerifyLog":         logSeeds(),
		"FuzzCheckpoint":        checkpointSeeds(),
	}
})

// lim names a limit seed: "limit-ok-" at or under the limit max,
// "limit-over-" past it.
func lim(n, max int) string {
	if n <= max {
		return "limit-ok-"
	}
	return "limit-over-"
}

func oneArg(vs []variant) []seed {
	out := make([]seed, len(vs))
	for i, v := range vs {
		out[i] = seed{v.name, []any{v.data}}
	}
	return out
}

// knownTickets are the CBOR forms of every generated ticket whose chain
// verifies under a fixed key: the only tickets a fuzzed input may be that
// verifies (anything else would be a forgery).
var knownTickets = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, v := range ticketSeeds() {
		tk, err := token.Decode(v.data)
		if err != nil {
			continue
		}
		for _, k := range []*key.Verifying{keys.hmac.Verifying(), keys.ed.Verifying()} {
			if _, err := tk.VerifyChain(k); err == nil {
				m[string(v.data)] = true
			}
		}
	}
	for _, c := range verifyCases {
		m[string(c.tk.Encode())] = true
	}
	return m
})

// knownTexts are the texts of knownTickets.
var knownTexts = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for b := range knownTickets() {
		m[token.Prefix+base64.RawURLEncoding.EncodeToString([]byte(b))] = true
	}
	return m
})

// ---- tickets ----

func hmacSecret() []byte { return fixedkey.Secret(keys.hmac) }

// valueOf returns the CBOR value of the caveat given as text.
func valueOf(text string) cavPair {
	c := must(caveat.Parse(text, now))
	return cavPair{uint64(c.Kind), must(wire.EncodeCaveat(c))}
}

// knownCaveats: one caveat of each of the 15 known kinds, in kind order.
func knownCaveats() []cavPair {
	var cs []cavPair
	for _, s := range scenario[0] {
		cs = append(cs, valueOf(s))
	}
	cs = append(cs, valueOf("holder="+keys.alice.jkt), valueOf("args="+keys.alice.jkt),
		valueOf("approval=lead:"+keys.alice.jkt+":AAECAwQFBgcICQoLDA0ODw"))
	slices.SortFunc(cs, func(a, b cavPair) int { return cmp.Compare(a.kind, b.kind) })
	return cs
}

func entries(n int, f string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(f, i)
	}
	return out
}

// sizedTicket returns a hand HMAC ticket of exactly size bytes: block 0
// with a tools list of long server-qualified names (257 bytes each) and
// one last name of the length that lands on size.
func sizedTicket(size int) []byte {
	lastName := func(l int) string {
		if l <= 128 {
			return "z" + strings.Repeat("n", l-1)
		}
		b := min(128, l-2)
		return "z" + strings.Repeat("s", l-2-b) + "/" + strings.Repeat("n", b)
	}
	build := func(n, l int) []byte {
		names := append(entries(n, "%04d"+strings.Repeat("s", 124)+"/"+strings.Repeat("n", 128)), lastName(l))
		return handHMACTicket(hmacSecret(), handTicketID, [][]byte{
			handBlock0(hmacKeyID, handTicketID, cavPair{uint64(caveat.Tools), cTextList(names)})}, false)
	}
	n := size / 260
	for len(build(n, 1)) > size {
		n--
	}
	for ; n > 0; n-- {
		b1 := len(build(n, 1)) - 2 // without the last name and its head
		for l := 1; l <= 257; l++ {
			if b1+len(head(3, uint64(l)))+l == size {
				if b := build(n, l); len(b) == size {
					return b
				}
			}
		}
	}
	panic(fmt.Sprintf("no ticket of %d bytes", size))
}

// mapSet sets key k of the map it (integer keys, kept sorted) to v.
func mapSet(it *item, k uint64, v item) {
	for i := 0; i < len(it.kids); i += 2 {
		if it.kids[i].arg == k {
			it.kids[i+1] = v
			return
		}
		if it.kids[i].arg > k {
			it.kids = append(it.kids[:i], append([]item{{major: 0, arg: k}, v}, it.kids[i:]...)...)
			return
		}
	}
	it.kids = append(it.kids, item{major: 0, arg: k}, v)
}

// mapDel removes key k from the map it.
func mapDel(it *item, k uint64) {
	for i := 0; i < len(it.kids); i += 2 {
		if it.kids[i].arg == k {
			it.kids = append(it.kids[:i], it.kids[i+2:]...)
			return
		}
	}
}

func edit(b []byte, f func(it *item)) []byte {
	it := mustParse(b)
	f(&it)
	return it.enc()
}

func bstrItem(b []byte) item { return item{major: 2, str: b} }
func uintItem(n uint64) item { return item{major: 0, arg: n} }

// ticketSeeds are the CBOR tickets of the corpus: valid tickets of both
// modes (sealed, unsealed, bound, rebound), the limits and one past them,
// every non-canonical encoding class (of the envelope, of a block and of
// caveat values, the latter two under a valid HMAC tag so that only the
// decoder can refuse them), and structural errors.
var ticketSeeds = sync.OnceValue(func() []variant {
	var out []variant
	add := func(name string, b []byte) { out = append(out, variant{name: name, data: b}) }
	secret := hmacSecret()

	for _, c := range verifyCases {
		add("valid-"+c.name, c.tk.Encode())
	}
	add("valid-hmac-no-caveats", must(mint("bare hmac", keys.hmac, nil)).Encode())
	add("valid-ed25519-no-caveats-sealed", must(must(mint("bare ed25519", keys.ed, nil)).Seal()).Encode())
	add("valid-hmac-one-block", chainOf(keys.hmac, "one block", scenario[0]).Encode())

	// Limits: 32 blocks (the most) and 33.
	for _, k := range []*key.Signing{keys.hmac, keys.ed} {
		tk := must(mint("32 "+k.Alg().String(), k, nil))
		for i := 1; i < token.MaxBlocks; i++ {
			tk = must(attenuate(fmt.Sprintf("32 %v %d", k.Alg(), i), tk, nil, nil))
		}
		add("limit-ok-32-blocks-"+k.Alg().String(), tk.Encode())
		if k.Alg() == key.HMACSHA256 {
			var blocks [][]byte
			for _, b := range tk.UnverifiedBlocks() {
				blocks = append(blocks, b.Bytes())
			}
			tid := tk.UnverifiedBlocks()[0].TicketID
			blocks = append(blocks, handBlock())
			add("limit-over-33-blocks-hmac", handHMACTicket(secret, tid, blocks, false))
		}
	}
	// 16 caveats per block (the most; the 15 known kinds and 1 unknown) and 17.
	cs := knownCaveats()
	for k := uint64(caveat.Args) + 1; len(cs) < 17; k++ {
		cs = append(cs, cavPair{k, cUint(0)})
		if n := len(cs); n >= 16 {
			add(fmt.Sprintf("%s%d-caveats", lim(n, 16), n), handHMACTicket(secret, handTicketID, [][]byte{handBlock0(hmacKeyID, handTicketID, cs...)}, false))
		}
	}
	// 1024 list entries and 1025; 1024-byte strings and 1025.
	add("limit-ok-1024-list-entries", must(mint("1024", keys.hmac, []caveat.Caveat{must(caveat.NewTools(entries(1024, "t%04d")...))})).Encode())
	add("limit-over-1025-list-entries", handHMACTicket(secret, handTicketID, [][]byte{handBlock0(hmacKeyID, handTicketID,
		cavPair{uint64(caveat.Tools), cTextList(entries(1025, "t%04d"))})}, false))
	add("limit-ok-1024-byte-string", must(mint("1024 string", keys.hmac, []caveat.Caveat{must(caveat.NewIntent(strings.Repeat("i", 1024)))})).Encode())
	add("limit-over-1025-byte-string", handHMACTicket(secret, handTicketID, [][]byte{handBlock0(hmacKeyID, handTicketID,
		cavPair{uint64(caveat.Intent), cText(strings.Repeat("i", 1025))})}, false))
	add("limit-ok-64-byte-key-id", handHMACTicket(secret, handTicketID, [][]byte{handBlock0(strings.Repeat("k", 64), handTicketID)}, false))
	add("limit-over-65-byte-key-id", handHMACTicket(secret, handTicketID, [][]byte{handBlock0(strings.Repeat("k", 65), handTicketID)}, false))
	add("limit-ok-65536-bytes", sizedTicket(token.MaxTicketBytes))
	add("limit-over-65537-bytes", sizedTicket(token.MaxTicketBytes+1))
	// Nesting: an unknown caveat's value at depth 4 (the most) and 5.
	add("limit-ok-nesting-4", handHMACTicket(secret, handTicketID, [][]byte{handBlock0(hmacKeyID, handTicketID,
		cavPair{42, cArray(cArray(cUint(0)))})}, false))
	add("limit-over-nesting-5", handHMACTicket(secret, handTicketID, [][]byte{handBlock0(hmacKeyID, handTicketID,
		cavPair{42, cArray(cArray(cArray(cUint(0))))})}, false))

	// Non-canonical envelopes.
	for _, v := range noncanonical(verifyCases[0].tk.Encode()) {
		add(v.prefix()+"envelope-hmac-"+v.name, v.data)
	}
	for _, v := range noncanonical(verifyCases[5].tk.Encode()) {
		add(v.prefix()+"envelope-ed25519-sealed-"+v.name, v.data)
	}
	// Non-canonical block 0 under a valid HMAC tag.
	b0 := handBlock0(hmacKeyID, handTicketID, valueOf("tools=read_file,write_file"), valueOf("until=2026-11-30T13:00:00Z"), valueOf(`intent="why"`))
	add("valid-hand-hmac", handHMACTicket(secret, handTicketID, [][]byte{b0}, false))
	for _, v := range noncanonical(b0) {
		add(v.prefix()+"block0-hmac-"+v.name, handHMACTicket(secret, handTicketID, [][]byte{v.data}, false))
	}
	// Non-canonical caveat values in a block 0 under a valid HMAC tag.
	for _, text := range []string{"tools=read_file,write_file", "calls=300", "cost=0.5USD", `intent="why"`, "holder=" + keys.alice.jkt} {
		cp := valueOf(text)
		for _, v := range noncanonical(cp.value) {
			blk := handBlock0(hmacKeyID, handTicketID, cavPair{cp.kind, v.data})
			add(fmt.Sprintf("%scaveat-%s-%s", v.prefix(), caveat.Kind(cp.kind), v.name), handHMACTicket(secret, handTicketID, [][]byte{blk}, false))
		}
	}

	// Structural errors (all under a valid HMAC tag where there is one).
	hb := func(name string, blocks ...[]byte) {
		add(name, handHMACTicket(secret, handTicketID, blocks, false))
	}
	hb("valid-unknown-caveat-kind", handBlock0(hmacKeyID, handTicketID, cavPair{42, cMap(cUint(1), cUint(2))}))
	hb("struct-caveat-kind-0", handBlock0(hmacKeyID, handTicketID, cavPair{0, cUint(1)}))
	hb("struct-mode-3", cMap(cUint(1), cUint(3), cUint(2), cText(hmacKeyID), cUint(3), cBytes(handTicketID), cUint(4), cMap()))
	hb("struct-no-mode", cMap(cUint(2), cText(hmacKeyID), cUint(3), cBytes(handTicketID), cUint(4), cMap()))
	hb("struct-ticket-id-15", handBlock0(hmacKeyID, handTicketID[:15]))
	hb("struct-key-id-space", handBlock0("fuzz hmac", handTicketID))
	hb("struct-no-caveat-map", cMap(cUint(1), cUint(1), cUint(2), cText(hmacKeyID), cUint(3), cBytes(handTicketID)))
	hb("struct-hmac-next-key", cMap(cUint(1), cUint(1), cUint(2), cText(hmacKeyID), cUint(3), cBytes(handTicketID), cUint(4), cMap(), cUint(5), cBytes(make([]byte, 32))))
	hb("struct-block1-with-mode", handBlock0(hmacKeyID, handTicketID), handBlock0(hmacKeyID, handTicketID))
	hb("struct-rebind-in-block0", cMap(cUint(1), cUint(1), cUint(2), cText(hmacKeyID), cUint(3), cBytes(handTicketID), cUint(4), cMap(), cUint(6), cBytes([]byte(`{"kty":"OKP"}`))))
	hb("struct-rebind-without-holder", handBlock0(hmacKeyID, handTicketID), cMap(cUint(4), cMap(), cUint(6), cBytes([]byte(`{"kty":"OKP"}`))))
	hb("struct-block-not-a-map", cArray(cUint(1)))
	hb("struct-block-empty-map", cMap())
	hb("valid-hand-two-blocks", handBlock0(hmacKeyID, handTicketID), handBlock())

	base := verifyCases[0].tk.Encode()
	ed := verifyCases[4].tk.Encode()
	add("struct-version-2", edit(base, func(it *item) { mapSet(it, 1, uintItem(2)) }))
	add("struct-version-0", edit(base, func(it *item) { mapSet(it, 1, uintItem(0)) }))
	add("struct-no-version", edit(base, func(it *item) { mapDel(it, 1) }))
	add("struct-no-blocks", edit(base, func(it *item) { mapDel(it, 2) }))
	add("struct-empty-blocks", edit(base, func(it *item) { mapSet(it, 2, item{major: 4}) }))
	add("struct-no-tail-no-seal", edit(base, func(it *item) { mapDel(it, 4) }))
	add("struct-tail-and-seal", edit(base, func(it *item) { mapSet(it, 5, bstrItem(make([]byte, 32))) }))
	add("struct-tail-31-bytes", edit(base, func(it *item) { mapSet(it, 4, bstrItem(make([]byte, 31))) }))
	add("struct-hmac-with-sigs", edit(base, func(it *item) {
		mapSet(it, 3, item{major: 4, kids: []item{bstrItem(make([]byte, 64)), bstrItem(make([]byte, 64)), bstrItem(make([]byte, 64))}})
	}))
	add("struct-ed25519-no-sigs", edit(ed, func(it *item) { mapDel(it, 3) }))
	add("struct-ed25519-sig-63", edit(ed, func(it *item) {
		for i := 0; i < len(it.kids); i += 2 {
			if it.kids[i].arg == 3 {
				it.kids[i+1].kids[0].str = it.kids[i+1].kids[0].str[:63]
			}
		}
	}))
	add("struct-ed25519-one-sig-short", edit(ed, func(it *item) {
		for i := 0; i < len(it.kids); i += 2 {
			if it.kids[i].arg == 3 {
				it.kids[i+1].kids = it.kids[i+1].kids[:2]
			}
		}
	}))
	add("struct-holder-sig-no-block", edit(base, func(it *item) {
		mapSet(it, 6, item{major: 5, kids: []item{uintItem(7), bstrItem(make([]byte, 64))}})
	}))
	add("struct-holder-sig-empty-map", edit(base, func(it *item) { mapSet(it, 6, item{major: 5}) }))
	rebound := verifyCases[3].tk.Encode()
	add("struct-rebind-sig-empty", edit(rebound, func(it *item) {
		for i := 0; i < len(it.kids); i += 2 {
			if it.kids[i].arg == 6 {
				it.kids[i+1].kids[1] = bstrItem(nil)
			}
		}
	}))
	add("struct-rebind-sig-257", edit(rebound, func(it *item) {
		for i := 0; i < len(it.kids); i += 2 {
			if it.kids[i].arg == 6 {
				it.kids[i+1].kids[1] = bstrItem(make([]byte, token.MaxRebindSigBytes+1))
			}
		}
	}))
	add("struct-rebind-sig-dropped", edit(rebound, func(it *item) { mapDel(it, 6) }))
	add("struct-blocks-inline-maps", edit(base, func(it *item) {
		for i := 0; i < len(it.kids); i += 2 {
			if it.kids[i].arg == 2 {
				for j, b := range it.kids[i+1].kids {
					it.kids[i+1].kids[j] = mustParse(b.str)
				}
			}
		}
	}))
	add("struct-top-level-array", cArray(base))
	add("struct-garbage", []byte("\xff\xfe\xfd"))
	return out
})

// textSeeds are the text forms of the ticket seeds plus text-only cases.
func textSeeds(tickets []variant) []seed {
	var out []seed
	add := func(name, s string) { out = append(out, seed{name, []any{s}}) }
	text := func(b []byte) string { return token.Prefix + base64.RawURLEncoding.EncodeToString(b) }
	for _, v := range tickets {
		add(v.name, text(v.data))
	}
	valid := verifyCases[0].tk.String()
	body := strings.TrimPrefix(valid, token.Prefix)
	add("text-padding", token.Prefix+base64.URLEncoding.EncodeToString(verifyCases[0].tk.Encode()))
	for _, c := range verifyCases {
		if b := c.tk.Encode(); strings.ContainsAny(base64.RawURLEncoding.EncodeToString(b), "-_") {
			add("text-std-alphabet", token.Prefix+base64.RawStdEncoding.EncodeToString(b))
			break
		}
	}
	add("text-trailing-newline", valid+"\n")
	add("text-trailing-crlf", valid+"\r\n")
	add("text-leading-space", " "+valid)
	add("text-inner-space", valid[:40]+" "+valid[40:])
	add("text-inner-newline", valid[:40]+"\n"+valid[40:])
	add("text-upper-prefix", strings.ToUpper(token.Prefix)+body)
	add("text-prefix-v2", "tkt2_"+body)
	add("text-no-prefix", body)
	add("text-prefix-only", token.Prefix)
	add("text-empty", "")
	add("text-double-prefix", token.Prefix+valid)
	add("text-truncated-char", valid[:len(valid)-1])
	add("text-one-char-extra", valid+"A")
	add("text-nul", valid+"\x00")
	add("text-non-ascii", valid[:40]+"é"+valid[41:])
	add("text-invalid-utf8", valid[:40]+"\xff"+valid[41:])
	// Non-zero unused bits in the last character.
	for _, ci := range []int{0, 1, 4, 5} {
		tk := verifyCases[ci].tk.String()
		b := strings.TrimPrefix(tk, token.Prefix)
		if len(b)%4 == 2 || len(b)%4 == 3 {
			const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
			i := strings.IndexByte(alphabet, b[len(b)-1])
			add("text-nonzero-trailing-bits-"+verifyCases[ci].name, tk[:len(tk)-1]+string(alphabet[i^1]))
		}
	}
	add("limit-over-text-length", token.Prefix+strings.Repeat("A", token.MaxTextBytes-len(token.Prefix)+1))
	return out
}

// blockSeeds are (block bytes, template) pairs for FuzzDecodeBlock.
func blockSeeds() []seed {
	var out []seed
	add := func(name string, b []byte, sel int) { out = append(out, seed{name, []any{b, byte(sel)}}) }
	for i, bt := range blockTemplates {
		add("valid-"+bt.name, bt.orig, i)
	}
	for _, v := range noncanonical(blockTemplates[0].orig) {
		add(v.prefix()+"hmac-block1-"+v.name, v.data, 0)
	}
	for _, v := range noncanonical(blockTemplates[3].orig) {
		add(v.prefix()+"ed25519-block0-"+v.name, v.data, 3)
	}
	cs := knownCaveats()
	for k := uint64(caveat.Args) + 1; len(cs) < 17; k++ {
		cs = append(cs, cavPair{k, cUint(0)})
		if n := len(cs); n >= 16 {
			add(fmt.Sprintf("%s%d-caveats", lim(n, 16), n), handBlock(cs...), 0)
		}
	}
	add("limit-ok-1024-list-entries", handBlock(cavPair{uint64(caveat.Paths), cTextList(entries(1024, "p%04d/"))}), 0)
	add("limit-over-1025-list-entries", handBlock(cavPair{uint64(caveat.Paths), cTextList(entries(1025, "p%04d/"))}), 0)
	add("limit-ok-1024-byte-string", handBlock(cavPair{uint64(caveat.Paths), cTextList([]string{strings.Repeat("p", 1023) + "/"})}), 0)
	add("limit-over-1025-byte-string", handBlock(cavPair{uint64(caveat.Intent), cText(strings.Repeat("i", 1025))}), 0)
	add("limit-ok-1024-byte-intent", handBlock(cavPair{uint64(caveat.Intent), cText(strings.Repeat("i", 1024))}), 0)
	add("empty-caveat-map", handBlock(), 0)
	add("empty-map", cMap(), 0)
	add("block1-with-mode", handBlock0(hmacKeyID, handTicketID), 0)
	add("hmac-block-with-next-key", cMap(cUint(4), cMap(), cUint(5), cBytes(make([]byte, 32))), 0)
	add("ed25519-block-without-next-key", handBlock(), 2)
	add("ed25519-block-next-key-31", cMap(cUint(4), cMap(), cUint(5), cBytes(make([]byte, 31))), 2)
	add("rebind-without-holder", cMap(cUint(4), cMap(), cUint(6), cBytes([]byte(`{}`))), 0)
	add("rebind-with-holder-no-sig", cMap(cUint(4), cavMap(valueOf("holder="+keys.bob.jkt)), cUint(6), cBytes(keys.alice.key.Public().JWK())), 0)
	add("unknown-caveat-kind", handBlock(cavPair{99, cText("x")}), 0)
	add("caveat-kind-0", handBlock(cavPair{0, cUint(1)}), 0)
	add("caveat-kind-max", handBlock(cavPair{1<<64 - 1, cUint(1)}), 0)
	add("garbage", []byte{0xff}, 1)
	add("empty", nil, 2)
	return out
}

// ---- caveats ----

// caveatTexts are valid caveats of every kind and form.
var caveatTexts = []string{
	"tools=read_file,workspace/write_file", "tools=read_file", "ops=invoke,delegate", "ops=invoke",
	"paths=src/discount", "paths=src/discount/,src/refund/", "paths=/", "paths=/srv/app",
	"hosts=API.example.com,*.example.org", "hosts=xn--bcher-kva.example", "aud=workspace,ci:runner/1",
	"calls=5", "calls=1", "calls=18446744073709551615", "depth=0", "depth=2",
	"cost=0.50USD", "cost=0.000001EUR", "total=5USD", "total=18446744073709.551615USD",
	"until=10m", "until=1h30m", "until=2026-11-30T03:20:00Z", "until=2026-11-30T05:20:00+02:00", "until=1796008800",
	"until=9999-12-31T23:59:59Z", "until=0", "nbf=1h", "nbf=2026-11-30T11:00:00Z", "nbf=1796008800",
	`intent="upgrade pricing deps"`, "intent=bare text", `intent="ünïcödé \u00e9"`,
	"holder=" + rfc9449JKT, "args=" + rfc9449JKT, "approval=lead:" + rfc9449JKT + ":AAECAwQFBgcICQoLDA0ODw",
	"approval=a:b:" + rfc9449JKT + ":AAECAwQFBgcICQoLDA0ODw:https://approve.example/x?y=z:1",
}

func caveatTextSeeds() []seed {
	var out []seed
	add := func(name, s string) { out = append(out, seed{name, []any{s}}) }
	for i, s := range caveatTexts {
		add(fmt.Sprintf("valid-%02d", i), s)
	}
	for i, s := range []string{
		"", "=", "tools", "tools=", "tools=,", "tools=a,,b", "tools= a", "tools=a ,b", "tools=a/b/c", "tools=" + strings.Repeat("t", 129),
		"TOOLS=a", "kind(42)=01", "unknown=1", "tools=a\x00", "tools=\xff",
		"ops=Invoke", "paths=src/../x", "paths=./x", "paths=src//x", `paths=src\x`, "paths=a,b,a", "paths=src/ x",
		"hosts=*.com", "hosts=*", "hosts=a.*.org", "hosts=exa mple.com", "hosts=bücher.example", "hosts=example.com.", "hosts=1.2.3.4", "hosts=[::1]",
		"calls=0", "calls=05", "calls=-1", "calls=+1", "calls=18446744073709551616", "depth=18446744073709551616",
		"cost=1.USD", "cost=.5USD", "cost=00.5USD", "cost=0.5usd", "cost=0.0000001USD", "cost=1e3USD", "cost=0.5 USD", "cost=18446744073709.551616USD",
		"until=-10m", "until=0s", "until=10000-01-01T00:00:00Z", "until=2026-11-30T03:20:00.5Z", "until=2026-13-01T00:00:00Z", "until=253402300800",
		"until=2562047h", "nbf=-1h", `intent=""`, `intent="a`, `intent="\x00"`, "intent=\u202e", "intent=a\nb", `intent="\u2028"`,
		"holder=" + rfc9449JKT + "=", "holder=" + rfc9449JKT[:42], "holder=" + rfc9449JKT[:42] + "J",
		"args=" + rfc9449JKT[:42], "approval=lead:" + rfc9449JKT, "approval=:" + rfc9449JKT + ":AAECAwQFBgcICQoLDA0ODw",
		"approval=k:" + rfc9449JKT + ":AAECAwQFBgcICQoLDA0ODw:", "approval=k:" + strings.Repeat("A", 43) + ":AAECAwQFBgcICQoLDA0ODw",
	} {
		add(fmt.Sprintf("edge-%02d", i), s)
	}
	for _, n := range []int{1024, 1025} {
		add(fmt.Sprintf("%s%d-list-entries", lim(n, 1024), n), "tools="+strings.Join(entries(n, "t%04d"), ","))
		add(fmt.Sprintf("%s%d-byte-intent", lim(n, 1024), n), `intent="`+strings.Repeat("i", n)+`"`)
		add(fmt.Sprintf("%s%d-byte-bare-intent", lim(n, 1024), n), "intent="+strings.Repeat("i", n))
	}
	return out
}

func caveatValueSeeds() []seed {
	var out []seed
	add := func(name string, k uint64, raw []byte) { out = append(out, seed{name, []any{k, raw}}) }
	for i, s := range caveatTexts {
		cp := valueOf(s)
		add(fmt.Sprintf("valid-%02d-%s", i, caveat.Kind(cp.kind)), cp.kind, cp.value)
	}
	for _, text := range []string{"tools=read_file,write_file", "until=2026-11-30T13:00:00Z", "cost=0.5USD", `intent="why"`, "holder=" + keys.alice.jkt,
		"approval=lead:" + keys.alice.jkt + ":AAECAwQFBgcICQoLDA0ODw:https://a/"} {
		cp := valueOf(text)
		for _, v := range noncanonical(cp.value) {
			add(fmt.Sprintf("%s%s-%s", v.prefix(), caveat.Kind(cp.kind), v.name), cp.kind, v.data)
		}
	}
	k := func(c caveat.Kind) uint64 { return uint64(c) }
	for _, n := range []int{1024, 1025} {
		add(fmt.Sprintf("%s%d-list-entries", lim(n, 1024), n), k(caveat.Tools), cTextList(entries(n, "t%04d")))
		add(fmt.Sprintf("%s%d-byte-string", lim(n, 1024), n), k(caveat.Intent), cText(strings.Repeat("i", n)))
	}
	add("limit-ok-nesting-4", 42, cArray(cArray(cArray(cArray(cUint(0))))))
	add("limit-over-nesting-5", 42, cArray(cArray(cArray(cArray(cArray(cUint(0)))))))
	add("unknown-kind-map", 42, cMap(cUint(1), cText("x")))
	add("unknown-kind-max", 1<<64-1, cUint(0))
	add("unknown-kind-tag", 42, append(head(6, 1), cUint(0)...))
	add("unknown-kind-float", 42, []byte{0xf9, 0x3c, 0x00})
	add("unknown-kind-indefinite", 42, []byte{0x9f, 0xff})
	add("unknown-kind-two-items", 42, []byte{0x00, 0x00})
	add("kind-0", 0, cUint(1))
	add("calls-0", k(caveat.Calls), cUint(0))
	add("calls-max", k(caveat.Calls), cUint(1<<64-1))
	add("until-max", k(caveat.Until), cUint(253402300799))
	add("until-max-plus-one", k(caveat.Until), cUint(253402300800))
	add("nbf-max-plus-one", k(caveat.NotBefore), cUint(253402300800))
	add("holder-31", k(caveat.Holder), cBytes(make([]byte, 31)))
	add("holder-33", k(caveat.Holder), cBytes(make([]byte, 33)))
	add("args-31", k(caveat.Args), cBytes(make([]byte, 31)))
	id, key, nonce := []byte{0x01, 0x61, 'k'}, cat(cUint(2), cBytes(bytes.Repeat([]byte{9}, 32))), cat(cUint(3), cBytes(make([]byte, 16)))
	appr := func(pairs ...[]byte) []byte { return cat(append([][]byte{head(5, uint64(len(pairs)))}, pairs...)...) }
	add("approval-no-nonce", k(caveat.Approval), appr(id, key))
	add("approval-empty-location", k(caveat.Approval), appr(id, key, nonce, cat(cUint(4), cText(""))))
	add("approval-extra-key", k(caveat.Approval), appr(id, key, nonce, cat(cUint(5), cUint(0))))
	add("approval-small-order", k(caveat.Approval), appr(id, cat(cUint(2), cBytes(make([]byte, 32))), nonce))
	add("cost-lowercase", k(caveat.Cost), cArray(cUint(5), cText("usd")))
	add("cost-three-items", k(caveat.Cost), cArray(cUint(5), cText("USD"), cUint(0)))
	add("total-zero", k(caveat.Total), cArray(cUint(0), cText("USD")))
	add("tools-unsorted", k(caveat.Tools), cTextList([]string{"b", "a"}))
	add("tools-duplicate", k(caveat.Tools), cTextList([]string{"a", "a"}))
	add("tools-empty-list", k(caveat.Tools), cTextList(nil))
	add("tools-empty-entry", k(caveat.Tools), cTextList([]string{""}))
	add("paths-no-slash", k(caveat.Paths), cTextList([]string{"src"}))
	add("paths-dotdot", k(caveat.Paths), cTextList([]string{"src/../"}))
	add("hosts-upper", k(caveat.Hosts), cTextList([]string{"API.example.com"}))
	add("ops-bytes", k(caveat.Ops), cArray(cBytes([]byte("invoke"))))
	add("intent-empty", k(caveat.Intent), cText(""))
	add("intent-control", k(caveat.Intent), cText("a\x07b"))
	add("depth-negative", k(caveat.Depth), []byte{0x20})
	return out
}

// ---- verify ----

func verifySeeds(tickets []variant) []seed {
	var out []seed
	add := func(name, text string, which int, off uint32, x byte) {
		out = append(out, seed{name, []any{text, byte(which), off, x}})
	}
	for i, c := range verifyCases {
		t := c.tk.String()
		add("valid-"+c.name, t, i, 0, 0)
		n := uint32(len(c.tk.Encode()))
		add("flip-last-byte-"+c.name, t, i, n-1, 0x01)
		add("flip-first-byte-"+c.name, t, i, 0, 0x80)
		add("flip-middle-byte-"+c.name, t, i, n/2, 0x40)
	}
	for _, v := range tickets {
		if strings.HasPrefix(v.name, "valid-") || strings.HasPrefix(v.name, "limit-ok-") {
			add("ticket-"+v.name, token.Prefix+base64.RawURLEncoding.EncodeToString(v.data), 0, 0, 0)
		}
	}
	// A ticket of another mode under the key id of the first (mode
	// confusion) and an Ed25519 ticket naming the HMAC key id.
	conf := handHMACTicket(hmacSecret(), handTicketID, [][]byte{handBlock0(edKeyID, handTicketID)}, false)
	add("hmac-ticket-naming-ed25519-key", token.Prefix+base64.RawURLEncoding.EncodeToString(conf), 0, 0, 0)
	pub := fixedkey.Public(keys.ed.Verifying())
	conf = handHMACTicket(pub, handTicketID, [][]byte{handBlock0(edKeyID, handTicketID)}, false)
	add("hmac-tag-keyed-with-ed25519-public-key", token.Prefix+base64.RawURLEncoding.EncodeToString(conf), 0, 0, 0)
	return out
}

// ---- DPoP ----

func dpopSeeds() []seed {
	var out []seed
	add := func(name, proof string, which int) {
		out = append(out, seed{name, []any{proof, byte(which), uint16(0), byte(0)}})
	}
	for i, c := range dpopCases {
		add("valid-"+c.name, c.valid, i)
		out = append(out, seed{"flip-signature-" + c.name, []any{c.valid, byte(i), uint16(len(c.valid) - 2), byte(0x01)}})
		out = append(out, seed{"flip-header-" + c.name, []any{c.valid, byte(i), uint16(10), byte(0x20)}})
	}
	add("rfc9449-token-request-for-resource", rfc9449TokenRequest, 2)
	add("rfc9449-resource-for-mcp", rfc9449Resource, 3)
	add("rfc9449-refresh-too-old", rfc9449Refresh, 0)

	priv := keys.alice.raw.(ed25519.PrivateKey)
	jwk := string(keys.alice.key.Public().JWK())
	privJWK := string(must(jose.JSONWebKey{Key: priv, Algorithm: "EdDSA"}.MarshalJSON()))
	hdr := `{"typ":"dpop+jwt","alg":"EdDSA","jwk":` + jwk + `}`
	const u = "https://api.example.com/v1/prices"
	iat := now.Unix()
	claims := func(extra string) string {
		return fmt.Sprintf(`{"jti":"hand-1","htm":"GET","htu":%q,"iat":%d%s}`, u, iat, extra)
	}
	const plain = 4 // dpopCases[4]: GET https://api.example.com/v1/prices, no jkt, nonce or ath
	add("valid-hand", jws(hdr, claims(""), priv), plain)
	add("valid-hand-extra-claim", jws(hdr, claims(`,"x":{"y":[1,2,3]}`), priv), plain)
	add("alg-none-unsigned", jws(`{"typ":"dpop+jwt","alg":"none","jwk":`+jwk+`}`, claims(""), nil), plain)
	add("alg-hs256", jws(`{"typ":"dpop+jwt","alg":"HS256","jwk":`+jwk+`}`, claims(""), priv), plain)
	add("alg-es256-with-okp-key", jws(`{"typ":"dpop+jwt","alg":"ES256","jwk":`+jwk+`}`, claims(""), priv), plain)
	add("typ-jwt", jws(`{"typ":"JWT","alg":"EdDSA","jwk":`+jwk+`}`, claims(""), priv), plain)
	add("typ-missing", jws(`{"alg":"EdDSA","jwk":`+jwk+`}`, claims(""), priv), plain)
	add("jwk-private", jws(`{"typ":"dpop+jwt","alg":"EdDSA","jwk":`+privJWK+`}`, claims(""), priv), plain)
	add("jwk-missing", jws(`{"typ":"dpop+jwt","alg":"EdDSA"}`, claims(""), priv), plain)
	add("jwk-symmetric", jws(`{"typ":"dpop+jwt","alg":"EdDSA","jwk":{"kty":"oct","k":"AAAA"}}`, claims(""), priv), plain)
	add("header-crit", jws(`{"typ":"dpop+jwt","alg":"EdDSA","crit":["exp"],"jwk":`+jwk+`}`, claims(""), priv), plain)
	add("header-b64-false", jws(`{"typ":"dpop+jwt","alg":"EdDSA","b64":false,"jwk":`+jwk+`}`, claims(""), priv), plain)
	add("header-duplicate-alg", jws(`{"typ":"dpop+jwt","alg":"none","alg":"EdDSA","jwk":`+jwk+`}`, claims(""), priv), plain)
	add("header-not-object", jws(`["dpop+jwt"]`, claims(""), priv), plain)
	add("claims-duplicate-jti", jws(hdr, `{"jti":"a","jti":"b","htm":"GET","htu":"`+u+`","iat":`+strconv.FormatInt(iat, 10)+`}`, priv), plain)
	add("claims-escaped-duplicate-htm", jws(hdr, `{"jti":"a","htm":"GET","ht\u006d":"POST","htu":"`+u+`","iat":`+strconv.FormatInt(iat, 10)+`}`, priv), plain)
	add("claims-iat-string", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":%q,"iat":"%d"}`, u, iat), priv), plain)
	add("claims-iat-float", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":%q,"iat":%d.0}`, u, iat), priv), plain)
	add("claims-iat-exponent", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":%q,"iat":1.796e9}`, u), priv), plain)
	add("claims-iat-negative", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":%q,"iat":-1}`, u), priv), plain)
	add("claims-iat-huge", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":%q,"iat":99999999999999999999999}`, u), priv), plain)
	for _, d := range []struct {
		name string
		off  time.Duration
	}{{"iat-oldest", -dpop.DefaultMaxAge}, {"iat-too-old", -dpop.DefaultMaxAge - time.Second},
		{"iat-newest", dpop.DefaultFutureSkew}, {"iat-too-new", dpop.DefaultFutureSkew + time.Second}} {
		add(d.name, jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":%q,"iat":%d}`, u, now.Add(d.off).Unix()), priv), plain)
	}
	add("claims-htm-lowercase", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"get","htu":%q,"iat":%d}`, u, iat), priv), plain)
	add("claims-htu-other-path", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":"https://api.example.com/v1/other","iat":%d}`, iat), priv), plain)
	add("claims-htu-relative", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":"/v1/prices","iat":%d}`, iat), priv), plain)
	add("claims-htu-equivalent", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":"HTTPS://api.EXAMPLE.com:443/v1/%%70rices?x#y","iat":%d}`, iat), priv), plain)
	add("claims-htu-userinfo", jws(hdr, fmt.Sprintf(`{"jti":"a","htm":"GET","htu":"https://u@api.example.com/v1/prices","iat":%d}`, iat), priv), plain)
	add("claims-jti-empty", jws(hdr, fmt.Sprintf(`{"jti":"","htm":"GET","htu":%q,"iat":%d}`, u, iat), priv), plain)
	add("claims-jti-256", jws(hdr, fmt.Sprintf(`{"jti":%q,"htm":"GET","htu":%q,"iat":%d}`, strings.Repeat("j", 256), u, iat), priv), plain)
	add("claims-jti-257", jws(hdr, fmt.Sprintf(`{"jti":%q,"htm":"GET","htu":%q,"iat":%d}`, strings.Repeat("j", 257), u, iat), priv), plain)
	add("claims-jti-number", jws(hdr, fmt.Sprintf(`{"jti":1,"htm":"GET","htu":%q,"iat":%d}`, u, iat), priv), plain)
	add("claims-missing-htm", jws(hdr, fmt.Sprintf(`{"jti":"a","htu":%q,"iat":%d}`, u, iat), priv), plain)
	add("claims-array", jws(hdr, `[1]`, priv), plain)
	add("claims-trailing-garbage", jws(hdr, claims("")+"x", priv), plain)
	add("claims-invalid-utf8", jws(hdr, fmt.Sprintf(`{"jti":"a\xff","htm":"GET","htu":%q,"iat":%d}`, u, iat), priv), plain)
	add("claims-two-objects", jws(hdr, claims("")+claims(""), priv), plain)
	tk := verifyCases[2].tk.String()
	ath := sha256.Sum256([]byte(tk))
	athB64 := base64.RawURLEncoding.EncodeToString(ath[:])
	bound := func(nonce, ath string) string {
		return jws(hdr, fmt.Sprintf(`{"jti":"b","htm":%q,"htu":%q,"iat":%d,"nonce":%q,"ath":%q}`, htm, htu, iat, nonce, ath), priv)
	}
	const nonceCase = 3
	add("valid-hand-bound", bound("nonce-1", athB64), nonceCase)
	add("hand-bound-wrong-nonce", bound("nonce-2", athB64), nonceCase)
	add("hand-bound-wrong-ath", bound("nonce-1", flipB64(athB64, 0)), nonceCase)
	add("hand-bound-ath-trailing-bits", bound("nonce-1", athB64[:42]+string(athB64[42]^1)), nonceCase)
	add("hand-bound-ath-padded", bound("nonce-1", athB64+"="), nonceCase)
	add("hand-bound-no-nonce", jws(hdr, fmt.Sprintf(`{"jti":"b","htm":%q,"htu":%q,"iat":%d,"ath":%q}`, htm, htu, iat, athB64), priv), nonceCase)
	add("hand-bound-by-bob", func() string {
		bp := keys.bob.raw.(ed25519.PrivateKey)
		h := `{"typ":"dpop+jwt","alg":"EdDSA","jwk":` + string(keys.bob.key.Public().JWK()) + `}`
		return jws(h, fmt.Sprintf(`{"jti":"b","htm":%q,"htu":%q,"iat":%d,"nonce":"nonce-1","ath":%q}`, htm, htu, iat, athB64), bp)
	}(), nonceCase)

	v := dpopCases[plain].valid
	add("syntax-padding", v+"=", plain)
	add("syntax-whitespace", v+" ", plain)
	add("syntax-four-parts", v+".e30", plain)
	add("syntax-two-parts", v[:strings.LastIndexByte(v, '.')], plain)
	add("syntax-empty", "", plain)
	add("syntax-dots", "..", plain)
	add("syntax-json-serialization", `{"protected":"`+strings.Split(v, ".")[0]+`","payload":"`+strings.Split(v, ".")[1]+`","signature":"`+strings.Split(v, ".")[2]+`"}`, plain)
	// The size limit: a valid proof of exactly MaxProofBytes, and one more
	// (padded with an extra claim; the header's trailing whitespace shifts
	// the base64 length, which grows in steps of 4/3).
	for _, size := range []int{dpop.MaxProofBytes, dpop.MaxProofBytes + 1} {
		found := false
		for hs := 0; hs < 4 && !found; hs++ {
			h := hdr[:len(hdr)-1] + strings.Repeat(" ", hs) + "}"
			for pad := (size-len(h)*4/3-90)*3/4 - len(claims("")) - 20; pad < size; pad++ {
				p := jws(h, claims(fmt.Sprintf(`,"pad":%q`, strings.Repeat("p", pad))), priv)
				if len(p) == size {
					add(fmt.Sprintf("%s%d-bytes", lim(size, dpop.MaxProofBytes), size), p, plain)
					found = true
				}
				if len(p) >= size {
					break
				}
			}
		}
		if !found {
			panic(fmt.Sprintf("no proof of %d bytes", size))
		}
	}
	return out
}

// flipB64 changes the base64url character at i to another one.
func flipB64(s string, i int) string {
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

// ---- receipts ----

// seedAlg names a receipt key's algorithm in seed names as the committed
// corpus has it (the receipt format's name, chain/FORMAT.md §1).
func seedAlg(a key.Alg) string {
	if a == key.HMACSHA256 {
		return "hmac-sha256"
	}
	return a.String()
}

// signRecord signs r (Seq, Time, Prev set) with key and encodes it, as
// Log.Append would; it writes records Append would refuse to.
func signRecord(k *key.Signing, r chain.Record) []byte {
	r.Alg = k.Alg()
	in := must(r.SigningInput())
	if k.Alg() == key.Ed25519 {
		r.Sig = ed25519.Sign(fixedkey.Secret(k), in)
	} else {
		m := hmac.New(sha256.New, fixedkey.Secret(k))
		m.Write(in)
		r.Sig = m.Sum(nil)
	}
	return must(r.Marshal())
}

func recordSeeds() []variant {
	var out []variant
	add := func(name string, b []byte) { out = append(out, variant{name: name, data: b}) }
	for _, fl := range fixedLogs {
		for i, b := range splitLog(fl.data) {
			add(fmt.Sprintf("valid-%v-%d", seedAlg(fl.key.Alg()), i), b)
		}
	}
	full := splitLog(fixedLogs[0].data)[4] // a refusal: every field set
	for _, v := range noncanonical(full) {
		add(v.prefix()+"record-"+v.name, v.data)
	}
	base := must(chain.Decode(full))
	rec := func(f func(r *chain.Record)) []byte {
		r := base
		f(&r)
		return signRecord(keys.logEd, r)
	}
	// setField replaces field k of the record's encoding: for values
	// Marshal refuses to write.
	setField := func(k uint64, v []byte) []byte {
		return edit(full, func(it *item) { mapSet(it, k, mustParse(v)) })
	}
	add("limit-ok-64-subjects", rec(func(r *chain.Record) { r.Subjects = entries(64, "s%02d") }))
	add("limit-over-65-subjects", setField(9, cTextList(entries(65, "s%02d"))))
	add("limit-ok-4096-byte-note", rec(func(r *chain.Record) { r.Note = strings.Repeat("n", 4096) }))
	add("limit-over-4097-byte-note", setField(13, cText(strings.Repeat("n", 4097))))
	add("limit-ok-1024-byte-reason", rec(func(r *chain.Record) { r.Reason = strings.Repeat("r", 1024) }))
	add("limit-over-1025-byte-reason", setField(12, cText(strings.Repeat("r", 1025))))
	add("limit-ok-1024-byte-tool", rec(func(r *chain.Record) { r.Tool = strings.Repeat("t", 1024) }))
	add("limit-over-1025-byte-tool", setField(7, cText(strings.Repeat("t", 1025))))
	add("limit-ok-64-byte-ticket-id", rec(func(r *chain.Record) { r.TicketID = make([]byte, 64) }))
	add("limit-over-65-byte-ticket-id", setField(4, cBytes(make([]byte, 65))))
	add("limit-ok-block-65535", rec(func(r *chain.Record) { r.Block = chain.MaxBlock }))
	add("limit-over-block-65536", setField(6, cUint(chain.MaxBlock+1)))
	add("limit-ok-time-max", rec(func(r *chain.Record) { r.Time = time.UnixMilli(chain.MaxTimeMillis).UTC() }))
	add("limit-over-time-max-plus-one", setField(2, cUint(chain.MaxTimeMillis+1)))
	add("kind-0", setField(3, cUint(0)))
	add("kind-10", setField(3, cUint(10)))
	add("alg-0", setField(15, cUint(0)))
	add("alg-3", setField(15, cUint(3)))
	add("alg-hmac-with-ed25519-sig", setField(15, cUint(2)))
	add("sig-63-bytes", setField(16, cBytes(make([]byte, 63))))
	add("prev-31-bytes", setField(14, cBytes(make([]byte, 31))))
	add("block-0-present", setField(6, cUint(0)))
	add("empty-subjects-present", setField(9, cArray()))
	add("empty-subject", setField(9, cTextList([]string{""})))
	add("empty-note-present", setField(13, cText("")))
	add("no-seq", edit(full, func(it *item) { mapDel(it, 1) }))
	add("no-sig", edit(full, func(it *item) { mapDel(it, 16) }))
	add("control-chars", rec(func(r *chain.Record) { r.Note = "line\r\nforged: allowed\x1b[2J\u202e" }))
	// The record size limit: exactly MaxRecordBytes, and one more. The
	// unsigned edit has the size of the signed record (same signature
	// length); within the limits the record is signed properly.
	subj := entries(15, "%02d"+strings.Repeat("x", 998))
	sized := func(n int) []byte {
		return edit(full, func(it *item) {
			mapSet(it, 9, mustParse(cTextList(subj)))
			mapSet(it, 13, mustParse(cText(strings.Repeat("n", n))))
		})
	}
	for _, size := range []int{chain.MaxRecordBytes, chain.MaxRecordBytes + 1} {
		n0 := size - len(sized(0))
		found := false
		for n := max(n0-4, 0); n <= n0+4 && !found; n++ {
			b := sized(n)
			if len(b) != size {
				continue
			}
			if size <= chain.MaxRecordBytes {
				r := base
				r.Subjects, r.Note = subj, strings.Repeat("n", n)
				b = signRecord(keys.logEd, r)
			}
			add(fmt.Sprintf("%s%d-bytes", lim(size, chain.MaxRecordBytes), size), b)
			found = true
		}
		if !found {
			panic(fmt.Sprintf("no record of %d bytes", size))
		}
	}
	return out
}

func logSeeds() []seed {
	var out []seed
	add := func(name string, b []byte, which int) {
		out = append(out, seed{name, []any{b, byte(which), uint32(0), byte(0)}})
	}
	for i, fl := range fixedLogs {
		add(fmt.Sprintf("valid-%v", seedAlg(fl.key.Alg())), fl.data, i)
		n := uint32(len(fl.data))
		for _, off := range []uint32{0, n / 3, n - 1} {
			out = append(out, seed{fmt.Sprintf("flip-%v-%d", seedAlg(fl.key.Alg()), off), []any{fl.data, byte(i), off, byte(0x01)}})
		}
	}
	ed := fixedLogs[0]
	recs := splitLog(ed.data)
	add("empty", nil, 0)
	add("one-record", recs[0], 0)
	add("torn-tail", ed.data[:len(ed.data)-5], 0)
	add("torn-tail-one-byte", append(append([]byte(nil), ed.data...), recs[0][0]), 0)
	add("trailing-zero", append(append([]byte(nil), ed.data...), 0), 0)
	// An item cut short by the end of the file with a
	// complete record after it is damage, not a torn tail.
	longer := cat(ed.data)
	longer[bytes.Index(longer, []byte{0x0e, 0x58})+1] = 0x59 // record 0's prev: 1 length byte to 2
	add("record-0-length-damaged", longer, 0)
	add("partial-then-complete", cat(ed.data, recs[0][:9], recs[0]), 0)
	add("record-dropped-from-middle", cat(recs[0], recs[2]), 0)
	add("records-swapped", cat(recs[1], recs[0]), 0)
	add("record-duplicated", cat(recs[0], recs[0]), 0)
	add("other-origin", buildLog(keys.logEd, "example.com/other", sampleRecords()[:2]), 0)
	add("hmac-record-in-ed25519-log", cat(recs[0], splitLog(fixedLogs[1].data)[1]), 0)
	// Hand-signed records whose chain is wrong although each signature is
	// valid.
	r0 := must(chain.Decode(recs[0]))
	r1 := must(chain.Decode(recs[1]))
	if string(signRecord(keys.logEd, r0)) != string(recs[0]) {
		panic("signRecord does not reproduce Log.Append")
	}
	bad := func(name string, f func(r *chain.Record)) {
		r := r1
		f(&r)
		add(name, cat(recs[0], signRecord(keys.logEd, r)), 0)
	}
	bad("seq-gap", func(r *chain.Record) { r.Seq = 2 })
	bad("seq-repeat", func(r *chain.Record) { r.Seq = 0 })
	bad("time-backwards", func(r *chain.Record) { r.Time = r0.Time.Add(-time.Millisecond) })
	bad("wrong-prev", func(r *chain.Record) { r.Prev = chain.OriginHash(origin) })
	bad("valid-hand-signed", func(r *chain.Record) {})
	first := func(name string, f func(r *chain.Record)) {
		r := r0
		f(&r)
		add(name, signRecord(keys.logEd, r), 0)
	}
	first("first-seq-1", func(r *chain.Record) { r.Seq = 1 })
	first("first-prev-zero", func(r *chain.Record) { r.Prev = [32]byte{} })
	for _, v := range noncanonical(recs[0]) {
		if v.name == "empty" { // an empty log is a valid log
			continue
		}
		add(v.prefix()+"first-record-"+v.name, v.data, 0)
	}
	return out
}

func checkpointSeeds() []seed {
	var out []seed
	add := func(name string, b []byte, which int) {
		out = append(out, seed{name, []any{b, byte(which), uint16(0), byte(0)}})
	}
	for i, fl := range fixedLogs {
		add(fmt.Sprintf("valid-%v", seedAlg(fl.key.Alg())), fl.cp, i)
		n := uint16(len(fl.cp))
		for _, off := range []uint16{0, n / 2, n - 2} {
			out = append(out, seed{fmt.Sprintf("flip-%v-%d", seedAlg(fl.key.Alg()), off), []any{fl.cp, byte(i), off, byte(0x01)}})
		}
		empty := must(chain.VerifyBytes(nil, fl.key.Verifying(), origin)).Checkpoint()
		add(fmt.Sprintf("valid-empty-log-%v", seedAlg(fl.key.Alg())), must(chain.SignCheckpoint(empty, fl.key)), i)
	}
	ed := fixedLogs[0]
	text := ed.sum.Text()
	sigs := string(ed.cp[len(text)+1:]) // "— name sig\n"
	other := must(key.NewEd25519("other-key", ed25519.NewKeyFromSeed(make([]byte, 32))))
	otherCP := must(chain.SignCheckpoint(ed.sum, other))
	otherSig := string(otherCP[len(text)+1:])
	add("text-only", []byte(text), 0)
	add("with-foreign-signature", []byte(text+"\n"+otherSig+sigs), 0)
	add("only-foreign-signature", otherCP, 0)
	add("no-signature", []byte(text+"\n"), 0)
	add("wrong-origin", must(chain.SignCheckpoint(chain.Checkpoint{Origin: "example.com/other", Size: ed.sum.Size, Root: ed.sum.Root, Head: ed.sum.Head}, keys.logEd)), 0)
	sign := func(name, t string) {
		// A body ParseCheckpoint refuses, signed by the key (through a
		// hand signature for Ed25519, as note.Sign would make it).
		msg := []byte(t)
		sig := ed25519.Sign(fixedkey.Secret(keys.logEd), msg)
		nv := must(keys.logEd.Verifying().NoteVerifier())
		var kh [4]byte
		binary.BigEndian.PutUint32(kh[:], nv.KeyHash())
		line := "— " + nv.Name() + " " + base64.StdEncoding.EncodeToString(append(kh[:], sig...)) + "\n"
		add(name, []byte(t+"\n"+line), 0)
	}
	sign("valid-hand-signed", text)
	lines := strings.SplitAfter(text, "\n")
	sign("size-leading-zero", lines[0]+"0"+lines[1]+lines[2]+lines[3])
	sign("size-plus", lines[0]+"+"+lines[1]+lines[2]+lines[3])
	sign("size-negative", lines[0]+"-1\n"+lines[2]+lines[3])
	sign("size-huge", lines[0]+"9223372036854775808\n"+lines[2]+lines[3])
	sign("extra-line", text+"extra\n")
	sign("no-head-line", lines[0]+lines[1]+lines[2])
	sign("head-without-prefix", lines[0]+lines[1]+lines[2]+strings.TrimPrefix(lines[3], "head "))
	sign("crlf", strings.ReplaceAll(text, "\n", "\r\n"))
	root := strings.TrimSuffix(lines[2], "\n")
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	last := root[len(root)-2] // 32 bytes: 43 characters and one "="
	root2 := root[:len(root)-2] + string(b64[strings.IndexByte(b64, last)^1]) + "="
	sign("root-nonzero-trailing-bits", lines[0]+lines[1]+root2+"\n"+lines[3])
	sign("root-unpadded", lines[0]+lines[1]+strings.TrimSuffix(root, "=")+"\n"+lines[3])
	sign("origin-with-space", "example.com/receipts fuzz\n"+lines[1]+lines[2]+lines[3])
	add("missing-final-newline", ed.cp[:len(ed.cp)-1], 0)
	add("signature-lines-crlf", []byte(text+"\n"+strings.ReplaceAll(sigs, "\n", "\r\n")), 0)
	// The size limit: a note of exactly MaxCheckpointBytes (padded with
	// signature lines of unknown keys, which signed-note ignores) and one
	// more.
	for _, size := range []int{chain.MaxCheckpointBytes, chain.MaxCheckpointBytes + 1} {
		body := text + "\n" + sigs
		pad := func(i, n int) string {
			return "— " + fmt.Sprintf("pad%02d", i) + strings.Repeat("x", n) + " " + base64.StdEncoding.EncodeToString(make([]byte, 68)) + "\n"
		}
		i := 0
		for len(body)+len(pad(i, 0)) <= size-len(pad(i+1, 0)) {
			body += pad(i, 0)
			i++
		}
		body += pad(i, size-len(body)-len(pad(i, 0)))
		if len(body) == size {
			add(fmt.Sprintf("%s%d-bytes", lim(size, chain.MaxCheckpointBytes), size), []byte(body), 0)
		}
	}
	add("garbage", []byte("\xff\n\n"), 0)
	add("empty", nil, 1)
	return out
}
