package vecgen

import (
	"encoding/hex"
	"strings"

	"github.com/fxamacker/cbor/v2"
)

// values adds one-block tickets whose caveat value sits on an edge of
// CAVEATS.md "Values": the ones that decode (with a request) and the ones
// that are malformed though correctly tagged.
func (g *gen) values() {
	long := func(n int) string { // a DNS name of n bytes, labels of at most 63
		var labels []string
		for n > 0 {
			l := min(n, 63)
			if n-l == 1 { // a lone dot left over: shorten this label
				l--
			}
			labels = append(labels, strings.Repeat("a", l))
			n -= l + 1
		}
		return strings.Join(labels, ".")
	}
	ok := func(name, desc string, kind uint64, v any, reqs ...Request) {
		g.valueVector(name, desc, kind, v, reqs)
	}
	bad := func(name, desc string, kind uint64, v any) { g.valueVector("malformed/"+name, desc, kind, v, nil) }

	ok("value/list-raw-byte-order", `tools ["ab","b"]: sorted by raw UTF-8 bytes, not by CBOR encoding`, 1, []string{"ab", "b"},
		req().tool("b").want(), req().tool("ab").want())
	bad("list-cbor-order", `tools ["b","ab"]: sorted by CBOR encoding (shorter first), not by raw bytes`, 1, []string{"b", "ab"})
	ok("value/intent-printable", "an intent of letters, marks, symbols (U+1FAE8, new in Unicode 15.0) and U+0020 decodes and holds", 12, "Grüße, 中文 ✓ — a b \U0001fae8",
		req().want())
	for _, c := range []struct{ name, text string }{
		{"nbsp", "a\u00a0b"}, {"zero-width-space", "a\u200bb"}, {"line-separator", "a\u2028b"},
		{"bom", "\ufeffab"}, {"private-use", "a\ue000b"}, {"del", "a\x7fb"}, {"tab", "a\tb"},
		{"unassigned", "a\U000e0080b"}, {"empty", ""},
		{"unicode-16", "a\U0001fae9b"}, // assigned only in Unicode 16.0: the spec pins 15.0.0
	} {
		bad("intent-"+c.name, "intent with "+c.name+": not printable (CAVEATS.md)", 12, c.text)
	}
	ok("value/path-inner-space", "a path prefix may hold a space inside a segment", 3, []string{"a b/"},
		req().paths("a b/c").want(), req().paths("a b").want(), req().paths("a/b").want(refCaveat(0, "paths")))
	for _, c := range []struct{ name, prefix string }{
		{"leading-space", " a/"}, {"trailing-space", "a /"}, {"second-segment-space", "a/ b/"},
		{"nbsp", "a\u00a0b/"}, {"comma", "a,b/"}, {"backslash", `a\b/`},
	} {
		bad("path-prefix-"+c.name, "path prefix "+hex.EncodeToString([]byte(c.prefix))+" (hex): "+c.name, 3, []string{c.prefix})
	}
	w253 := "*." + long(251)
	ok("value/host-wildcard-253", "a wildcard pattern of exactly 253 bytes, *. included", 4, []string{w253},
		req().urls("https://x."+w253[2:]+"/").want())
	bad("host-wildcard-254", "a wildcard pattern of 254 bytes, *. included", 4, []string{"*." + long(252)})
	bad("host-wildcard-all-digit-tld", "*.1.2.3: a wildcard over an all-digit last label", 4, []string{"*.1.2.3"})
	bad("host-wildcard-digit-last-label", "*.a.1: a wildcard over an all-digit last label", 4, []string{"*.a.1"})
	bad("unknown-kind-bstr-key", "an unknown kind's value is a map keyed by a byte string", 99, cbor.RawMessage{0xa1, 0x41, 0x01, 0x01})
	ok("value/unknown-kind-map", "an unknown kind's value is a map keyed by a negative integer and a text string: it decodes, and refuses",
		99, map[any]int{-1: 1, "a": 2}, req().want(refCaveat(0, "kind(99)")))
	bad("host-wildcard-one-label", "*.org: a wildcard over a single label", 4, []string{"*.org"})
	ok("value/host-digits-exact", "an exact pattern may end in digits", 4, []string{"1.2.3.4", "a.1"},
		req().urls("http://a.1/").want(), req().urls("http://1.2.3.4/").want(), req().urls("http://b.a.1/").want(refCaveat(0, "hosts")))
}

// valueVector adds a one-block HMAC ticket {kind: v}: a valid vector with
// reqs, or, without reqs, a malformed one.
func (g *gen) valueVector(name, desc string, kind uint64, v any, reqs []Request) {
	raw, err := enc.Marshal(v)
	g.fail(err)
	cs := map[uint64][]byte{kind: raw}
	if reqs == nil {
		vec := Vector{Name: name, Description: desc, Error: "malformed", TicketHex: g.rawTicket("root-h", name, cs)}
		g.fail(g.checkRequests(&vec))
		g.file.Vectors = append(g.file.Vectors, vec)
		return
	}
	g.add(Vector{Name: name, Description: desc, Requests: reqs}, g.decodeWire(g.rawWire("root-h", name, cs)), "root-h", false)
}
