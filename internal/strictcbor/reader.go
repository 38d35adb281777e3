package strictcbor

import "encoding/binary"

// Reader reads an item that Check has accepted. Because the bytes are
// known to be well formed, canonical and within limits, reading needs no
// allocation and no recursion budget: a method fails only when the item is
// not of the type asked for. Reader never copies: byte and text slices
// alias the input.
//
// It exists for the verifier's hot path; fxamacker/cbor remains the
// reference decoder, and fuzz tests hold the two to the same answers.
type Reader struct {
	b   []byte
	off int
	err bool
}

// NewReader returns a reader over b, which must have passed Check.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Failed reports whether any read so far met a type it did not expect.
func (r *Reader) Failed() bool { return r.err }

// Done reports whether every byte has been read (and nothing failed).
func (r *Reader) Done() bool { return !r.err && r.off == len(r.b) }

// head reads a head of the given major type and returns its argument.
func (r *Reader) head(major byte) uint64 {
	if r.err || r.off >= len(r.b) || r.b[r.off]>>5 != major {
		r.err = true
		return 0
	}
	ai := r.b[r.off] & 0x1f
	r.off++
	if ai < 24 {
		return uint64(ai)
	}
	n := 1 << (ai - 24) // Check admits only 24..27 here
	if ai > 27 || r.off+n > len(r.b) {
		r.err = true
		return 0
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	switch n {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(p))
	case 4:
		return uint64(binary.BigEndian.Uint32(p))
	}
	return binary.BigEndian.Uint64(p)
}

// Offset returns how many bytes have been read.
func (r *Reader) Offset() int { return r.off }

// Peek returns the major type of the next item, or 255 at the end.
func (r *Reader) Peek() byte {
	if r.err || r.off >= len(r.b) {
		return 255
	}
	return r.b[r.off] >> 5
}

// Uint reads an unsigned integer.
func (r *Reader) Uint() uint64 { return r.head(0) }

// Map reads a map head and returns its number of pairs.
func (r *Reader) Map() int { return r.count(5) }

// Array reads an array head and returns its number of items.
func (r *Reader) Array() int { return r.count(4) }

func (r *Reader) count(major byte) int {
	n := r.head(major)
	if n > uint64(len(r.b)-r.off) { // Check guarantees this; stay safe anyway
		r.err = true
		return 0
	}
	return int(n)
}

// Bytes reads a byte string.
func (r *Reader) Bytes() []byte { return r.str(2) }

// Text reads a text string (UTF-8, as Check verified) as bytes.
func (r *Reader) Text() []byte { return r.str(3) }

func (r *Reader) str(major byte) []byte {
	n := r.head(major)
	if r.err || n > uint64(len(r.b)-r.off) {
		r.err = true
		return nil
	}
	s := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return s
}

// Raw reads the next item, whatever it is, and returns its exact bytes.
func (r *Reader) Raw() []byte {
	start := r.off
	r.skip()
	if r.err {
		return nil
	}
	return r.b[start:r.off:r.off]
}

func (r *Reader) skip() {
	if r.err || r.off >= len(r.b) {
		r.err = true
		return
	}
	switch major := r.b[r.off] >> 5; major {
	case 0, 1:
		r.head(major)
	case 2, 3:
		r.str(major)
	case 4:
		for n := r.count(4); n > 0 && !r.err; n-- {
			r.skip()
		}
	case 5:
		for n := r.count(5); n > 0 && !r.err; n-- {
			r.skip()
			r.skip()
		}
	case 7:
		r.off++ // false or true: Check admits no other simple value
	default:
		r.err = true
	}
}
