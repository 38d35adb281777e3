package wire_test

import (
	"bytes"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

// FuzzDecodeCaveat: DecodeCaveat never panics, and whatever it accepts
// re-encodes to exactly the same bytes and, for known kinds, survives the
// text form.
func FuzzDecodeCaveat(f *testing.F) {
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
		{14, approvalValue(false)},
		{14, approvalValue(true)},
		{15, append([]byte{0x58, 0x20}, make([]byte, 32)...)},
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
			t.Fatalf("DecodeCaveat(%d, %x) = %+v re-encodes to %x, %v", k, raw, c, again, err)
		}
		_ = c.Evaluate(&caveat.Request{}, now, 0)
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

// approvalValue returns the CBOR value of approval=k:KEY:NONCE, key bytes
// 1..32 and nonce bytes 0..15, with location "https://a/" when loc.
func approvalValue(loc bool) []byte {
	b := []byte{0xa3, 0x01, 0x61, 'k', 0x02, 0x58, 0x20}
	if loc {
		b[0] = 0xa4
	}
	b = append(b, seq(1, 32)...)
	b = append(b, 0x03, 0x50)
	b = append(b, seq(0, 16)...)
	if loc {
		b = append(append(b, 0x04, 0x6a), "https://a/"...)
	}
	return b
}
