package caveat

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/internal/strictcbor"
)

// decodeValueReference is DecodeValue written with the fxamacker/cbor
// decoder, plus a re-encoding check. DecodeValue reads canonical bytes by
// hand for speed; this reference stays, and FuzzDecodeValueMatchesReference
// holds the two to the same answer on every input.
func decodeValueReference(k Kind, raw []byte) (Caveat, error) {
	c := Caveat{Kind: k}
	var err error
	switch k {
	case Tools, Ops, Paths, Hosts, Audience:
		err = strictcbor.Unmarshal(raw, &c.List, strictcbor.TicketLimits)
	case Calls, Depth:
		err = strictcbor.Unmarshal(raw, &c.N, strictcbor.TicketLimits)
	case Until, NotBefore:
		var t uint64
		err = strictcbor.Unmarshal(raw, &t, strictcbor.TicketLimits)
		if err == nil && t > uint64(maxTime) {
			return Caveat{}, syntaxErr(k, "time")
		}
		c.Time = int64(t)
	case Cost, Total:
		var a amountValue
		err = strictcbor.Unmarshal(raw, &a, strictcbor.TicketLimits)
		c.Amount = Amount{Micros: a.Micros, Currency: a.Currency}
	case Intent:
		err = strictcbor.Unmarshal(raw, &c.Text, strictcbor.TicketLimits)
	case Holder:
		err = strictcbor.Unmarshal(raw, &c.Bytes, strictcbor.TicketLimits)
	default:
		if err := strictcbor.Check(raw, strictcbor.TicketLimits); err != nil {
			return Caveat{}, syntaxErr(k, "raw")
		}
		return Caveat{Kind: k, Raw: bytes.Clone(raw)}, nil
	}
	if err != nil {
		return Caveat{}, syntaxErr(k, "value")
	}
	if why := c.problem(); why != "" {
		return Caveat{}, syntaxErr(k, "%s", why)
	}
	enc, err := c.encode()
	if err != nil || !bytes.Equal(enc, raw) {
		return Caveat{}, syntaxErr(k, "not canonical")
	}
	return c, nil
}

func FuzzDecodeValueMatchesReference(f *testing.F) {
	for _, s := range []struct {
		k   uint8
		hex string
	}{{1, "8169726561645f66696c65"}, {3, "81647372632f"}, {5, "05"}, {6, "1a6b0d7350"}, {9, "821a0007a120635553 44"},
		{12, "6568656c6c6f"}, {13, "5820" + "00000000000000000000000000000000000000000000000000000000000000ff"},
		{1, "826162616"}, {5, "1805"}, {9, "83010203"}, {99, "a10102"}, {4, "816b4558414d504c452e434f4d"}} {
		f.Add(s.k, mustHexF(s.hex))
	}
	f.Fuzz(func(t *testing.T, k uint8, raw []byte) {
		got, err1 := DecodeValue(Kind(k), raw)
		want, err2 := decodeValueReference(Kind(k), raw)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("kind %d %x: fast %v, reference %v", k, raw, err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err1)
			}
			return
		}
		if !got.Equal(want) {
			t.Fatalf("kind %d %x: fast %+v, reference %+v", k, raw, got, want)
		}
		if enc, err := got.MarshalValue(); err != nil || !bytes.Equal(enc, raw) {
			t.Fatalf("kind %d %x re-encodes to %x (%v)", k, raw, enc, err)
		}
	})
}

// mustHexF decodes hex seeds, ignoring spaces and a trailing odd digit
// (some seeds are deliberately truncated items).
func mustHexF(s string) []byte {
	s = strings.ReplaceAll(s, " ", "")
	b, _ := hex.DecodeString(s[:len(s)&^1])
	return b
}
