package vecgen

import (
	"encoding/hex"
	"strings"

	"github.com/tickettool/tickettool/internal/fixedkey"
)

// CBOR heads, written by hand on purpose: these vectors are encodings no
// conforming encoder produces.
func head(major byte, n int) []byte {
	switch {
	case n < 24:
		return []byte{major<<5 | byte(n)}
	case n < 256:
		return []byte{major<<5 | 24, byte(n)}
	}
	return []byte{major<<5 | 25, byte(n >> 8), byte(n)}
}

func bstr(b []byte) []byte { return append(head(2, len(b)), b...) }

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// malformed lists inputs every decoder must refuse (spec/FORMAT.md §1–§3):
// each class of non-canonical encoding, unknown and missing fields, bad
// values, and text forms that are not the one text of a ticket.
func (g *gen) malformed() {
	t := g.mint("malformed/base", "root-h", g.caveats("tools=read_file"), g.caveats("paths=src/"))
	if t == nil {
		return
	}
	w := unwire(g, t)
	b0, b1, tag := w.Blocks[0], w.Blocks[1], w.Tail
	blocks := func(bs ...[]byte) []byte {
		out := head(4, len(bs))
		for _, b := range bs {
			out = append(out, bstr(b)...)
		}
		return out
	}
	ver, tail := []byte{0x01, 0x01}, cat([]byte{0x04}, bstr(tag))
	env := func(bs ...[]byte) []byte { return cat([]byte{0xa3}, ver, []byte{0x02}, blocks(bs...), tail) }
	block1 := func(h string) []byte { return mustHex(h) }
	reblock0 := func(from, to string) []byte {
		return mustHex(strings.Replace(hex.EncodeToString(b0), from, to, 1))
	}
	valid := env(b0, b1)
	if hex.EncodeToString(valid) != hex.EncodeToString(t.Encode()) {
		g.fail(errorf("malformed: base envelope does not match the encoder"))
		return
	}
	// An approval caveat's block: {4: {14: {1: key id, 2: key, 3: nonce, extra}}}.
	pub := fixedkey.Public(g.keys["root-e"].Verifying())
	identity := append([]byte{1}, make([]byte, 31)...) // a point of small order
	approvalBlock := func(mapHead, keyID string, key []byte, extra string) []byte {
		return cat(mustHex("a104a10e"+mapHead+"01"+keyID+"02"), bstr(key), mustHex("0350"), make([]byte, 16), mustHex(extra))
	}
	tooMany := [][]byte{b0}
	for range 32 {
		tooMany = append(tooMany, mustHex("a104a0"))
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"trailing-byte", cat(valid, []byte{0x00})},
		{"non-shortest-integer", cat([]byte{0xa3, 0x01, 0x18, 0x01, 0x02}, blocks(b0, b1), tail)},
		{"non-shortest-length", cat([]byte{0xa3}, ver, []byte{0x02}, blocks(b0, b1), []byte{0x04, 0x59, 0x00, 0x20}, tag)},
		{"indefinite-array", cat([]byte{0xa3}, ver, []byte{0x02, 0x9f}, bstr(b0), bstr(b1), []byte{0xff}, tail)},
		{"unsorted-map-keys", cat([]byte{0xa3, 0x02}, blocks(b0, b1), ver, tail)},
		{"duplicate-map-key", cat([]byte{0xa4}, ver, ver, []byte{0x02}, blocks(b0, b1), tail)},
		{"tag", cat([]byte{0xa3}, ver, []byte{0x02, 0x82, 0xd8, 0x18}, bstr(b0), bstr(b1), tail)},
		{"float", cat([]byte{0xa3, 0x01, 0xf9, 0x3c, 0x00, 0x02}, blocks(b0, b1), tail)},
		{"null", cat([]byte{0xa3}, ver, []byte{0x02}, blocks(b0, b1), []byte{0x04, 0xf6})},
		{"unknown-field", cat([]byte{0xa4}, ver, []byte{0x02}, blocks(b0, b1), tail, []byte{0x07, 0x00})},
		{"missing-version", cat([]byte{0xa2, 0x02}, blocks(b0, b1), tail)},
		{"version-2", cat([]byte{0xa3, 0x01, 0x02, 0x02}, blocks(b0, b1), tail)},
		{"empty-tail", cat([]byte{0xa3}, ver, []byte{0x02}, blocks(b0, b1), []byte{0x04, 0x40})},
		{"tail-and-seal", cat([]byte{0xa4}, ver, []byte{0x02}, blocks(b0, b1), tail, []byte{0x05}, bstr(tag))},
		{"too-many-blocks", env(tooMany...)},
		{"block-non-shortest-integer", env(reblock0("a40101", "a4011801"), b1)},
		{"block-invalid-utf8", env(reblock0("726f6f742d68", "726f6f74ff68"), b1)},
		{"block-unknown-field", env(b0, block1("a204a10381647372632f0700"))},
		{"block-unsorted-caveat-kinds", env(b0, block1("a104a20381647372632f018169726561645f66696c65"))},
		{"block-caveat-kind-0", env(b0, block1("a104a10081647372632f"))},
		{"block-unsorted-list", env(b0, block1("a104a103826473726b2f647372632f"))},
		{"block-duplicate-list-entry", env(b0, block1("a104a10382647372632f647372632f"))},
		{"block-empty-list", env(b0, block1("a104a10380"))},
		{"block-prefix-without-slash", env(b0, block1("a104a1038163737263"))},
		{"block-prefix-dot-dot", env(b0, block1("a104a10381672e2e2f7372632f"))},
		{"block-uppercase-host", env(b0, block1("a104a104816b4558414d504c452e434f4d"))},
		{"block-mode-in-block-1", env(b0, block1("a2010104a10381647372632f"))},
		{"block-missing-caveat-map", env(b0, block1("a0"))},
		{"block-short-ticket-id", env(reblock0("0350"+hex.EncodeToString(b0[13:29]), "034f"+hex.EncodeToString(b0[13:28])), b1)},
		{"block-next-key-in-hmac-mode", env(b0, cat(mustHex("a204a10381647372632f05"), bstr(make([]byte, 32))))},
		// Approval and args caveats (FORMAT.md §4.6, §5): out of their rules.
		{"approval-empty-location", env(b0, approvalBlock("a4", "616b", pub, "0460"))},
		{"approval-unknown-key", env(b0, approvalBlock("a4", "616b", pub, "0500"))},
		{"approval-31-byte-key", env(b0, approvalBlock("a3", "616b", pub[:31], ""))},
		{"approval-small-order-key", env(b0, approvalBlock("a3", "616b", identity, ""))},
		{"approval-plus-in-key-id", env(b0, approvalBlock("a3", "63612b62", pub, ""))},
		{"args-31-bytes", env(b0, cat(mustHex("a104a10f"), bstr(make([]byte, 31))))},
		{"five-approval-caveats", env(b0, approvalBlock("a3", "616b", pub, ""), approvalBlock("a3", "616b", pub, ""),
			approvalBlock("a3", "616b", pub, ""), approvalBlock("a3", "616b", pub, ""), approvalBlock("a3", "616b", pub, ""))},
	}
	for _, c := range cases {
		g.file.Vectors = append(g.file.Vectors, Vector{Name: "malformed/" + c.name, Error: "malformed",
			Description: "CBOR that is not a canonical v1 ticket: " + strings.ReplaceAll(c.name, "-", " "),
			TicketHex:   hex.EncodeToString(c.data)})
	}
	text := t.String()
	for _, c := range []struct{ name, text string }{
		{"text-padding", text + "=="},
		{"text-whitespace", text + "\n"},
		{"text-other-prefix", "tkt2_" + strings.TrimPrefix(text, "tkt1_")},
		{"text-standard-alphabet", text[:10] + "+" + text[11:]},
		{"text-no-prefix", strings.TrimPrefix(text, "tkt1_")},
	} {
		g.file.Vectors = append(g.file.Vectors, Vector{Name: "malformed/" + c.name, Error: "malformed",
			Description: "not the one text form of a ticket", Ticket: c.text})
	}
	for i := len(g.file.Vectors) - len(cases) - 5; i < len(g.file.Vectors); i++ {
		g.fail(g.checkRequests(&g.file.Vectors[i]))
	}
}

type genError string

func (e genError) Error() string { return string(e) }

func errorf(s string) error { return genError("vecgen: " + s) }
