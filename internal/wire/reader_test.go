package wire

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// walk reads one item of b with r as a generic caller would: typed reads
// for the types Reader has, Raw for the others, map keys compared as the
// caller must. It reports false if the keys of some map do not ascend.
func walk(r *Reader, depth int) bool {
	switch r.Peek() {
	case 0:
		r.Uint()
	case 2:
		r.Bytes()
	case 3:
		r.Text()
	case 4:
		if depth > r.lim.MaxDepth {
			r.Raw(depth) // refuses it, as Check does
			return true
		}
		for n := r.Array(); n > 0 && !r.Failed(); n-- {
			if !walk(r, depth+1) {
				return false
			}
		}
	case 5:
		if depth > r.lim.MaxDepth {
			r.Raw(depth)
			return true
		}
		var prev []byte
		for n, i := r.Map(), 0; i < n && !r.Failed(); i++ {
			if m := r.Peek(); m != 0 && m != 1 && m != 3 && m != 255 {
				return false // keys are integers or text, by rule
			}
			start := r.Offset()
			if !walk(r, depth+1) {
				return false
			}
			if r.Failed() {
				return true
			}
			key := r.b[start:r.Offset()]
			if prev != nil && bytes.Compare(prev, key) >= 0 {
				return false
			}
			prev = key
			if !walk(r, depth+1) {
				return false
			}
		}
	default: // negative integers, tags, simple values, the end
		r.Raw(depth)
	}
	return true
}

// readAll reports whether a generic caller reading b with a Reader accepts
// it.
func readAll(b []byte, lim Limits) bool {
	r := NewReader(b, lim)
	if !walk(&r, 1) {
		return false
	}
	return r.Done() && (lim.MaxItemSize <= 0 || len(b) <= lim.MaxItemSize)
}

func TestReaderAcceptsWhatCheckAccepts(t *testing.T) {
	for _, h := range []string{
		"00", "17", "1818", "1901f4", "1a00010000", "1b0000000100000000",
		"20", "3818", "40", "4401020304", "60", "6161",
		"80", "83010203", "a0", "a201020304", "a2616101616202", "a20a00181800",
		"f4", "f5", "818181a0",
	} {
		b, _ := hex.DecodeString(h)
		if !readAll(b, TicketLimits()) {
			r := NewReader(b, TicketLimits())
			walk(&r, 1)
			t.Errorf("%s: refused: %v", h, r.Err())
		}
	}
}

// TestReaderRejects: every class Check refuses, a Reader refuses too when
// it reads the item (the key-order rows, through walk's comparison).
func TestReaderRejects(t *testing.T) {
	for _, h := range []string{
		"", "0000", "1817", "190017", "1900ff", "1a0000ffff", "1b00000000ffffffff", "5801ff", "980100",
		"5f41ff", "9f00ff", "bf0000ff", "a202000100", "a201000100", "a21818000a00",
		"c100", "f93c00", "fa3f800000", "f6", "f7", "f820", "62c328", "8181818181a0",
		"1c", "19", "4201", "830102", "9bffffffffffffffff", "a18000", "a14000",
	} {
		b, _ := hex.DecodeString(h)
		if readAll(b, TicketLimits()) {
			t.Errorf("%q: accepted", h)
		}
	}
}

func TestReaderLimits(t *testing.T) {
	lim := Limits{MaxDepth: 4, MaxItems: 3, MaxText: 2, MaxBytes: 2}
	for _, c := range []struct {
		hex string
		ok  bool
	}{
		{"83010203", true}, {"8401020304", false},
		{"a3010102020303", true}, {"a401010202030304 04", false},
		{"626161", true}, {"63616161", false},
		{"420101", true}, {"43010101", false},
	} {
		b, _ := hex.DecodeString(strings.ReplaceAll(c.hex, " ", ""))
		if got := readAll(b, lim); got != c.ok {
			t.Errorf("%s: accepted=%v, want %v", c.hex, got, c.ok)
		}
	}
}

// TestReaderRawItemSize: Raw holds the item it reads to MaxItemSize, at
// the limit and one byte past it, as ItemLen does.
func TestReaderRawItemSize(t *testing.T) {
	lim := Limits{MaxDepth: 4, MaxItemSize: 4}
	for _, c := range []struct {
		hex string
		ok  bool
	}{{"83010203", true}, {"8401020304", false}, {"43010203", true}, {"4401020304", false}} {
		b, _ := hex.DecodeString(c.hex)
		r := NewReader(b, lim)
		r.Raw(1)
		if r.Done() != c.ok || (!c.ok && !strings.Contains(r.Err().Error(), "item larger than 4 bytes")) {
			t.Errorf("%s: done %v, %v; want ok=%v", c.hex, r.Done(), r.Err(), c.ok)
		}
	}
}

// TestReaderFailures: the first failure sticks, names what went wrong and
// where, and WrongType tells a type mismatch from malformed input.
func TestReaderFailures(t *testing.T) {
	for _, c := range []struct {
		hex       string
		read      func(r *Reader)
		why       string
		off       int
		wrongType bool
	}{
		{"6161", func(r *Reader) { r.Uint() }, "wrong CBOR type", 0, true},
		{"8101", func(r *Reader) { r.Map() }, "wrong CBOR type", 0, true},
		{"1817", func(r *Reader) { r.Uint() }, "shortest form", 0, false},
		{"82 1817", func(r *Reader) { r.Array(); r.Uint() }, "shortest form", 1, false},
		{"7f", func(r *Reader) { r.Text() }, "indefinite", 0, false},
		{"1c", func(r *Reader) { r.Uint() }, "reserved", 0, false},
		{"62c328", func(r *Reader) { r.Text() }, "UTF-8", 0, false},
		{"4201", func(r *Reader) { r.Bytes() }, "end of input", 0, false},
		{"8301", func(r *Reader) { r.Array() }, "end of input", 0, false},
		{"", func(r *Reader) { r.Uint() }, "end of input", 0, false},
		{"81 c100", func(r *Reader) { r.Array(); r.Raw(2) }, "tags", 1, false},
		{"8181818181 00", func(r *Reader) { r.Array(); r.Raw(2) }, "nesting", 4, false},
		{"81818181 00", func(r *Reader) { r.Array(); r.Raw(2); r.Uint() }, "end of input", 5, false},
		{"0102", func(r *Reader) { r.Uint(); r.Seek(0) }, "seek", 1, false},
		{"01 6161", func(r *Reader) { r.Uint(); r.Uint(); r.Uint() }, "wrong CBOR type", 1, true},
	} {
		b, _ := hex.DecodeString(strings.ReplaceAll(c.hex, " ", ""))
		r := NewReader(b, TicketLimits())
		c.read(&r)
		e, _ := r.Err().(*Error)
		if e == nil || !strings.Contains(e.Reason, c.why) || e.Offset != c.off || r.WrongType() != c.wrongType || !r.Failed() || r.Done() {
			t.Errorf("%q: got %v (wrong type %v), want %q at offset %d (wrong type %v)", c.hex, r.Err(), r.WrongType(), c.why, c.off, c.wrongType)
		}
		if r.Peek() != 255 || r.Uint() != 0 || r.Bytes() != nil || r.Raw(1) != nil {
			t.Errorf("%q: a read after a failure did not fail", c.hex)
		}
	}
}

func TestReaderReads(t *testing.T) {
	b, _ := hex.DecodeString(strings.ReplaceAll("a4 01 1903e8 02 43010203 03 63c3a962 04 82f5a0", " ", ""))
	r := NewReader(b, TicketLimits())
	if n := r.Map(); n != 4 {
		t.Fatalf("map of %d", n)
	}
	if r.Uint() != 1 || r.Uint() != 1000 || r.Uint() != 2 || !bytes.Equal(r.Bytes(), []byte{1, 2, 3}) ||
		r.Uint() != 3 || string(r.Text()) != "éb" || r.Uint() != 4 {
		t.Fatalf("reads: %v", r.Err())
	}
	if raw := r.Raw(2); !bytes.Equal(raw, []byte{0x82, 0xf5, 0xa0}) || cap(raw) != len(raw) || !r.Done() {
		t.Fatalf("raw %x (cap %d), done %v: %v", raw, cap(raw), r.Done(), r.Err())
	}
}

func TestReaderAllocatesNothing(t *testing.T) {
	b, _ := hex.DecodeString("a3016161028301020303a1616140")
	if n := testing.AllocsPerRun(100, func() { _ = readAll(b, TicketLimits()) }); n != 0 {
		t.Fatalf("reading allocates %v times", n)
	}
}

// FuzzReaderAgreesWithCheck: a generic caller reading with a Reader (and
// keeping the two rules Reader leaves to callers) accepts exactly what
// Check accepts.
func FuzzReaderAgreesWithCheck(f *testing.F) {
	for _, h := range []string{"a201020304", "83010203", "1817", "a202000100", "f5", "62c328", "c100", "f93c00",
		"a0", "818181a0", "8181818181a0", "a2616101616202", "a13bffffffffffffffff00", "9bffffffffffffffff"} {
		b, _ := hex.DecodeString(h)
		f.Add(b)
	}
	lim := Limits{MaxDepth: 4, MaxItems: 64, MaxText: 256, MaxBytes: 256, MaxItemSize: 1024}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := Check(b, lim) == nil
		if got := readAll(b, lim); got != want {
			t.Fatalf("%x: reader accepted=%v, Check accepted=%v", b, got, want)
		}
	})
}
