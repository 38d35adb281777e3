package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

func TestCheckAcceptsCanonical(t *testing.T) {
	for _, h := range []string{
		"00", "17", "1818", "1901f4", "1a00010000", "1b0000000100000000", // shortest uints at each width
		"20", "3818", // negative ints
		"40", "4401020304", "60", "6161", // strings
		"80", "83010203", "a0", "a201020304", "a2616101616202", // arrays, maps sorted
		"a20a00181800", // 10 before 24: bytewise order of encodings
		"f4", "f5",     // false, true
		"818181a0", // depth 4
	} {
		b, _ := hex.DecodeString(h)
		if err := Check(b, TicketLimits()); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
}

// TestCheckRejects lists one input for every non-canonical class the spec
// names (spec/FORMAT.md §1).
func TestCheckRejects(t *testing.T) {
	for _, c := range []struct{ hex, why string }{
		{"", "empty input"},
		{"0000", "trailing bytes"},
		{"1817", "shortest form"},
		{"190017", "shortest form"},
		{"1900ff", "shortest form"},
		{"1a0000ffff", "shortest form"},
		{"1b00000000ffffffff", "shortest form"},
		{"5801ff", "shortest form"}, // length 1 in a one-byte extension
		{"9801 00", "shortest form"},
		{"5f41ff", "indefinite"},
		{"9f00ff", "indefinite"},
		{"bf0000ff", "indefinite"},
		{"a202000100", "canonical order"},
		{"a201000100", "canonical order"}, // duplicate key
		{"a2181800 0a00", "canonical order"},
		{"c100", "tags"},
		{"f93c00", "floating-point"},
		{"fa3f800000", "floating-point"},
		{"fb3ff0000000000000", "floating-point"},
		{"f6", "simple value"}, // null
		{"f7", "simple value"}, // undefined
		{"f820", "floating-point or simple"},
		{"62c328", "UTF-8"},
		{"8181818181a0", "nesting"},
		{"1c", "reserved"},
		{"19", "end of input"},
		{"4201", "end of input"},
		{"83 0102", "end of input"},
		{"9bffffffffffffffff", "too many"},
		{"a18000", "map key"},
		{"a14000", "map key"},
	} {
		b, _ := hex.DecodeString(strings.ReplaceAll(c.hex, " ", ""))
		err := Check(b, TicketLimits())
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%q: got %v, want an error about %q", c.hex, err, c.why)
		}
	}
}

func TestLimits(t *testing.T) {
	lim := Limits{MaxDepth: 4, MaxItems: 3, MaxText: 2, MaxBytes: 2, MaxItemSize: 8}
	for _, c := range []struct {
		hex string
		ok  bool
	}{
		{"83010203", true}, {"8401020304", false}, // items at and past the limit
		{"626161", true}, {"63616161", false}, // text
		{"420101", true}, {"43010101", false}, // bytes
	} {
		b, _ := hex.DecodeString(c.hex)
		if err := Check(b, lim); (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok=%v", c.hex, err, c.ok)
		}
	}
	big := append([]byte{0x89}, bytes.Repeat([]byte{0}, 9)...)
	if err := Check(big, Limits{MaxDepth: 4, MaxItems: 20, MaxItemSize: 8}); err == nil {
		t.Error("item over MaxItemSize accepted")
	}
}

// reencode is the reference: decode with fxamacker into generic values and
// re-encode deterministically.
// The reference cannot represent a map key below -2^63 (it decodes to a
// big.Int, which cannot key a Go map): such inputs are outside its domain,
// reported by outside.
func reencode(b []byte) (out []byte, ok, outside bool) {
	dm, _ := cbor.DecOptions{DupMapKey: cbor.DupMapKeyEnforcedAPF, IndefLength: cbor.IndefLengthForbidden,
		TagsMd: cbor.TagsForbidden, MaxNestedLevels: 16}.DecMode()
	var v any
	if err := dm.Unmarshal(b, &v); err != nil {
		var kt *cbor.InvalidMapKeyTypeError
		return nil, false, errors.As(err, &kt)
	}
	out, err := encoder.Marshal(v)
	return out, err == nil, false
}

// FuzzCheckAgreesWithReference: Check accepts exactly the inputs that
// fxamacker decodes and re-encodes to themselves (restricted to the types
// and limits we allow).
func FuzzCheckAgreesWithReference(f *testing.F) {
	for _, h := range []string{"a201020304", "83010203", "1817", "a202000100", "f5", "62c328", "c100", "f93c00", "a0"} {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	lim := Limits{MaxDepth: 4, MaxItems: 64, MaxText: 256, MaxBytes: 256, MaxItemSize: 1024}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b, lim)
		out, ok, outside := reencode(b)
		if outside {
			return
		}
		same := ok && bytes.Equal(out, b)
		if err == nil && !same {
			t.Fatalf("Check accepted %x, which re-encodes to %x (ok=%v)", b, out, ok)
		}
		if err != nil && same && withinTypes(b) && len(b) < 1024 && !strings.Contains(err.Error(), "too") && !strings.Contains(err.Error(), "nesting") {
			t.Fatalf("Check refused canonical %x: %v", b, err)
		}
	})
}

// withinTypes reports whether b avoids the major types and simple values
// the reference accepts but we refuse by rule (tags, floats, null,
// undefined, and map keys other than integers and text).
func withinTypes(b []byte) bool {
	var v any
	if err := cbor.Unmarshal(b, &v); err != nil {
		return false
	}
	var ok func(any) bool
	ok = func(x any) bool {
		switch x := x.(type) {
		case uint64, int64, []byte, string, bool:
			return true
		case []any:
			for _, e := range x {
				if !ok(e) {
					return false
				}
			}
			return true
		case map[any]any:
			for k, e := range x {
				switch k.(type) {
				case uint64, int64, string: // map keys: integers and text only, by rule
				default:
					return false
				}
				if !ok(e) {
					return false
				}
			}
			return true
		}
		return false
	}
	return ok(v)
}

func TestCheckAllocatesNothing(t *testing.T) {
	b, _ := hex.DecodeString("a3016161028301020303a1616140")
	if n := testing.AllocsPerRun(100, func() { _ = Check(b, TicketLimits()) }); n != 0 {
		t.Fatalf("Check allocates %v times", n)
	}
}

// TestCheckAcceptsEveryIntegerKey: map keys may be any integer CBOR can
// write, including those below -2^63 that fxamacker cannot decode into a Go
// map (so FuzzCheckAgreesWithReference leaves them out); the typed readers
// of token and caveat then refuse a key that is not a kind.
func TestCheckAcceptsEveryIntegerKey(t *testing.T) {
	for _, h := range []string{"a13bffffffffffffffff00", "a220003bffffffffffffffff00"} {
		b, _ := hex.DecodeString(h)
		if err := Check(b, TicketLimits()); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
}

// TestEndOfInputOnlyAfterCanonicalPrefix: ItemLen reports "unexpected end
// of input" exactly when every byte before the end is a canonical prefix,
// so that chain can tell a torn receipt tail from damage (chain/FORMAT.md
// §2). An array or map announcing more entries than bytes remain is read
// entry by entry, not cut short at its head; a head or string that the
// end cuts is not judged further (its argument or content is incomplete).
func TestEndOfInputOnlyAfterCanonicalPrefix(t *testing.T) {
	for _, c := range []struct{ hex, why string }{
		{"a6ff", "map key"},             // 6 pairs announced, a key that can be none
		{"a640", "map key"},             // a byte-string key
		{"a60100ff", "map key"},         // after a complete pair
		{"a6020001", "canonical order"}, // keys out of order
		{"8a1c", "reserved"},            // an array entry that is no head
		{"8ac1", "tags"},
		{"8a1800", "shortest form"},
		{"a6", "end of input"},
		{"a601", "end of input"},
		{"a6011b0000", "end of input"},  // a head's argument cut: not judged
		{"a601190000", "shortest form"}, // complete: judged
		{"a60162ff", "end of input"},    // a string's content cut: UTF-8 not judged
		{"a60162ffff", "UTF-8"},
		{"a60159ffff", "too long"}, // a length over the limit, judged at its head
	} {
		b, _ := hex.DecodeString(c.hex)
		_, err := ItemLen(b, RecordLimits())
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: got %v, want an error about %q", c.hex, err, c.why)
		}
	}
}
