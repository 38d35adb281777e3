package wire

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// Reader reads canonical CBOR item by item, and checks as it reads what
// Check would check of every item it reads: heads in shortest form, no
// indefinite lengths, no tags, floats or simple values but false and true,
// lengths within the limits and the input, and valid UTF-8 in text
// strings. Three rules it cannot see are its caller's, because only the
// caller knows where an item it reads piece by piece begins and ends: that
// map keys come in canonical order (a reader of a known shape compares the
// keys it reads), how deeply arrays and maps nest (a known shape fixes
// that) and that the whole item is at most Limits.MaxItemSize bytes. Raw
// checks all three for the item it reads. A caller that keeps the three
// rules and ends with Done accepts exactly what Check accepts, and reads
// it in one pass; the fuzz target FuzzReaderAgreesWithCheck holds a
// generic caller to that.
//
// A read that fails returns a zero value and records the first failure
// (Err); every later read fails too. Reader never copies: byte and text
// slices alias the input. It exists for the verifier's hot path;
// fxamacker/cbor remains the reference decoder, and fuzz tests hold the
// decoders built on Reader to the same answers.
type Reader struct {
	b   []byte
	off int
	lim Limits
	err *Error
}

// NewReader returns a reader over b that applies lim to every item.
func NewReader(b []byte, lim Limits) Reader { return Reader{b: b, lim: lim} }

// Err returns the first failure, or nil.
func (r *Reader) Err() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

// Failed reports whether any read so far failed.
func (r *Reader) Failed() bool { return r.err != nil }

// WrongType reports whether the first failure was an item of another type
// than the one asked for (rather than input that is not canonical CBOR).
func (r *Reader) WrongType() bool { return r.err != nil && r.err.wrongType }

// Done reports whether every byte has been read and nothing failed.
func (r *Reader) Done() bool { return r.err == nil && r.off == len(r.b) }

// Offset returns how many bytes have been read.
func (r *Reader) Offset() int { return r.off }

// Seek moves to offset off, which must lie in the input; a caller uses it
// to step over an item another decoder read.
func (r *Reader) Seek(off int) {
	if off < r.off || off > len(r.b) {
		r.fail(r.off, "internal error: seek outside the input", false)
		return
	}
	r.off = off
}

func (r *Reader) fail(off int, reason string, wrongType bool) {
	if r.err == nil {
		r.err = &Error{Offset: off, Reason: reason, wrongType: wrongType}
	}
}

// failure describes the first failure in a message about the item that
// starts at offset start and that the message calls what, counting bytes
// from start: "byte 3 of the value: text string too long".
func (r *Reader) failure(what string, start int) string {
	switch {
	case r.err == nil:
		return ""
	case r.err.Offset < start:
		return what + ": " + r.err.Reason
	}
	return "byte " + strconv.Itoa(r.err.Offset-start) + " of the " + what + ": " + r.err.Reason
}

// Peek returns the major type of the next item, or 255 at the end or after
// a failure.
func (r *Reader) Peek() byte {
	if r.err != nil || r.off >= len(r.b) {
		return 255
	}
	return r.b[r.off] >> 5
}

// head reads a head of the given major type (0 to 5) and returns its
// argument.
func (r *Reader) head(major byte) uint64 {
	_, arg := r.readHead(major)
	return arg
}

// anyType asks readHead for a head of any major type.
const anyType = 255

// readHead reads a head of major type want (0 to 5), or of any type when
// want is anyType, and returns its type and argument: for major type 7
// only the one-byte heads (simple values 0 to 23), since floats and the
// longer simple values are never canonical here. Every read of this
// package goes through it.
func (r *Reader) readHead(want byte) (major byte, arg uint64) {
	if r.err != nil {
		return 0, 0
	}
	if want != anyType && r.off < len(r.b) && r.b[r.off]>>5 != want {
		r.fail(r.off, "wrong CBOR type: want "+majorName[want], true)
		return 0, 0
	}
	off := r.off
	if off >= len(r.b) {
		r.fail(off, "unexpected end of input", false)
		return 0, 0
	}
	ib := r.b[off]
	major, ai := ib>>5, ib&0x1f
	switch {
	case ai < 24:
		r.off++
		return major, uint64(ai)
	case ai == 31:
		r.fail(off, "indefinite length", false)
		return 0, 0
	case ai > 27:
		r.fail(off, "reserved additional information", false)
		return 0, 0
	}
	n := 1 << (ai - 24)
	if len(r.b)-off-1 < n {
		r.fail(off, "unexpected end of input", false)
		return 0, 0
	}
	p := r.b[off+1 : off+1+n]
	var min uint64
	switch n {
	case 1:
		arg, min = uint64(p[0]), 24
	case 2:
		arg, min = uint64(binary.BigEndian.Uint16(p)), 1<<8
	case 4:
		arg, min = uint64(binary.BigEndian.Uint32(p)), 1<<16
	default:
		arg, min = binary.BigEndian.Uint64(p), 1<<32
	}
	switch {
	case major == 7:
		r.fail(off, "floating-point or simple value", false)
		return 0, 0
	case arg < min:
		r.fail(off, "integer or length not in shortest form", false)
		return 0, 0
	}
	r.off = off + 1 + n
	return major, arg
}

var majorName = [...]string{"unsigned integer", "negative integer", "byte string", "text string", "array", "map"}

// Uint reads an unsigned integer.
func (r *Reader) Uint() uint64 { return r.head(0) }

// Map reads a map head and returns its number of pairs. The caller reads
// the pairs and checks that their keys ascend.
func (r *Reader) Map() int { return r.count(5) }

// Array reads an array head and returns its number of items.
func (r *Reader) Array() int { return r.count(4) }

func (r *Reader) count(major byte) int {
	off := r.off
	n := r.head(major)
	switch {
	case r.err != nil:
		return 0
	case r.lim.MaxItems > 0 && n > uint64(r.lim.MaxItems):
		r.fail(off, "too many entries", false)
		return 0
	case n > uint64(len(r.b)-r.off): // every entry takes at least one byte
		r.fail(off, "unexpected end of input", false)
		return 0
	}
	return int(n)
}

// Bytes reads a byte string.
func (r *Reader) Bytes() []byte { return r.str(2) }

// Text reads a text string, checked to be valid UTF-8, as bytes.
func (r *Reader) Text() []byte { return r.str(3) }

// str reads a string of the given major type (2 or 3).
func (r *Reader) str(major byte) []byte {
	off := r.off
	n := r.head(major)
	switch {
	case r.err != nil:
		return nil
	case major == 2 && r.lim.MaxBytes > 0 && n > uint64(r.lim.MaxBytes):
		r.fail(off, "byte string too long", false)
		return nil
	case major == 3 && r.lim.MaxText > 0 && n > uint64(r.lim.MaxText):
		r.fail(off, "text string too long", false)
		return nil
	case n > uint64(len(r.b)-r.off):
		r.fail(off, "unexpected end of input", false)
		return nil
	}
	end := r.off + int(n)
	s := r.b[r.off:end:end]
	if major == 3 && !utf8.Valid(s) {
		r.fail(off, "text string is not valid UTF-8", false)
		return nil
	}
	r.off = end
	return s
}
