package caveat_test

import (
	"bytes"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

// FuzzParse: Parse never panics, and whatever it accepts prints to a text
// that parses back to the same caveat and prints the same again, and
// encodes to CBOR that decodes back to it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"tools=read_file,workspace/write_file", "ops=invoke,delegate", "paths=src/discount",
		"paths=/", "paths=src/../x", "hosts=API.example.com,*.example.org", "hosts=*.com",
		"aud=workspace", "calls=5", "depth=0", "cost=0.50USD", "total=5USD", "cost=1.USD",
		"until=10m", "until=2026-11-30T03:20:00Z", "until=1796008800", "nbf=1h30m",
		`intent="upgrade pricing deps"`, "intent=bare text", `intent="\u202e"`,
		"holder=" + jkt, "kind(42)=01", "=", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := caveat.Parse(s, now)
		if err != nil {
			return
		}
		text := c.String()
		d, err := caveat.Parse(text, now)
		if err != nil || !d.Equal(c) || d.String() != text {
			t.Fatalf("Parse(%q) = %+v; its text %q reparses as %+v, %v", s, c, text, d, err)
		}
		raw, err := wire.EncodeCaveat(c)
		if err != nil {
			t.Fatalf("MarshalValue(%s): %v", text, err)
		}
		if e, err := wire.DecodeCaveat(c.Kind, raw); err != nil || !e.Equal(c) {
			t.Fatalf("DecodeValue(%x) = %+v, %v", raw, e, err)
		}
		_ = c.Check(&caveat.Request{Tool: s, Op: s, Paths: []string{s}, URLs: []string{s}, Audience: s}, now, 0)
	})
}

// FuzzDecodeValue: DecodeValue never panics, and whatever it accepts
// re-encodes to exactly the same bytes and, for known kinds, survives the
// text form.
func FuzzDecodeValue(f *testing.F) {
	for _, seed := range []struct {
		k   byte
		hex []byte
	}{
		{1, []byte{0x82, 0x61, 'a', 0x61, 'b'}},
		{1, []byte{0x82, 0x61, 'b', 0x61, 'a'}},
		{3, []byte{0x81, 0x62, 'a', '/'}},
		{4, []byte{0x81, 0x63, '*', '.', 'a'}},
		{5, []byte{0x05}},
		{5, []byte{0x18, 0x05}},
		{6, []byte{0x1a, 0x6b, 0x0c, 0xeb, 0x60}},
		{9, []byte{0x82, 0x1a, 0x00, 0x07, 0xa1, 0x20, 0x63, 'U', 'S', 'D'}},
		{11, []byte{0x00}},
		{12, []byte{0x61, 'x'}},
		{13, append([]byte{0x58, 0x20}, make([]byte, 32)...)},
		{42, []byte{0xa1, 0x01, 0x02}},
		{0, []byte{0x9f, 0xff}},
	} {
		f.Add(seed.k, seed.hex)
	}
	f.Fuzz(func(t *testing.T, k byte, raw []byte) {
		c, err := wire.DecodeCaveat(caveat.Kind(k), raw)
		if err != nil {
			return
		}
		again, err := wire.EncodeCaveat(c)
		if err != nil || !bytes.Equal(again, raw) {
			t.Fatalf("DecodeValue(%d, %x) = %+v re-encodes to %x, %v", k, raw, c, again, err)
		}
		_ = c.Check(&caveat.Request{}, now, 0)
		var s caveat.Scope
		_ = s.Add(0, c)
		_ = s.Add(1, c)
		if !c.Kind.Known() {
			return
		}
		d, err := caveat.Parse(c.String(), now)
		if err != nil || !d.Equal(c) {
			t.Fatalf("text %q of %x reparses as %+v, %v", c.String(), raw, d, err)
		}
	})
}
