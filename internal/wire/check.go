package wire

import (
	"bytes"
	"strconv"
)

// Error reports input that is not one canonical CBOR item within the limits.
type Error struct {
	Offset int    // byte offset of the offending head, or -1 when unknown
	Reason string // what is wrong, never the bytes themselves

	wrongType bool // a Reader met another type than it asked for
}

// Error returns the reason, after the offset when known. It has no
// package prefix: the decoder that called Check adds its own, once.
func (e *Error) Error() string {
	if e.Offset < 0 {
		return e.Reason
	}
	return "at byte " + strconv.Itoa(e.Offset) + ": " + e.Reason
}

// Check reports whether data is exactly one well-formed data item in core
// deterministic encoding (RFC 8949 §4.2.1) within lim, with no trailing
// bytes. It allocates nothing on success.
func Check(data []byte, lim Limits) error {
	n, err := ItemLen(data, lim)
	if err != nil {
		return err
	}
	if n != len(data) {
		return &Error{Offset: n, Reason: "trailing bytes after the item"}
	}
	return nil
}

// ItemLen checks the first item of data as Check does and returns its
// length; bytes after it are not examined. It reads CBOR sequences
// (RFC 8742) one item at a time.
func ItemLen(data []byte, lim Limits) (int, error) {
	if len(data) == 0 {
		return 0, &Error{Offset: 0, Reason: "empty input"}
	}
	r := NewReader(data, lim)
	r.Raw(1)
	if r.err != nil {
		return 0, r.err
	}
	return r.off, nil
}

// Raw reads the next item, whatever it is, and returns its exact bytes,
// after checking it entirely as Check does, given that it lies depth
// levels deep (1 for a top-level item) in an item whose nesting is bounded
// by the reader's limits.
func (r *Reader) Raw(depth int) []byte {
	start := r.off
	r.item(depth)
	if r.err != nil {
		return nil
	}
	if r.lim.MaxItemSize > 0 && r.off-start > r.lim.MaxItemSize {
		r.fail(start, "item larger than "+strconv.Itoa(r.lim.MaxItemSize)+" bytes", false)
		return nil
	}
	return r.b[start:r.off:r.off]
}

// item reads one item of any type, depth levels deep, and everything in
// it. It keeps the three rules the typed reads leave to their callers:
// map keys ascend, nesting is at most lim.MaxDepth deep, and map keys are
// integers or text strings.
//
// An array or map that announces more entries than bytes remain is not
// cut short at its head: its entries are read in turn, so that "unexpected
// end of input" means every byte before the end is a canonical prefix
// (chain tells a torn receipt tail from damage by it). Each entry takes at
// least one byte, so the loop ends with the input.
func (r *Reader) item(depth int) {
	off := r.off
	major, arg := r.readHead(anyType)
	switch {
	case r.err != nil:
	case major == 2 || major == 3:
		r.off = off // read it again as a string
		r.str(major)
	case major == 4 || major == 5:
		if depth > r.lim.MaxDepth {
			r.fail(off, "nesting deeper than "+strconv.Itoa(r.lim.MaxDepth), false)
			return
		}
		if r.lim.MaxItems > 0 && arg > uint64(r.lim.MaxItems) {
			r.fail(off, "too many entries", false)
			return
		}
		if major == 4 {
			for i := uint64(0); i < arg && r.err == nil; i++ {
				r.item(depth + 1)
			}
			return
		}
		r.pairs(arg, depth)
	case major == 6:
		r.fail(off, "tags are not allowed", false)
	case major == 7 && arg != 20 && arg != 21:
		r.fail(off, "simple value other than false or true", false)
	}
}

// pairs reads the n pairs of a map, depth levels deep, checking that its
// keys are integers or text strings in strictly ascending bytewise order
// (RFC 8949 §4.2.1).
func (r *Reader) pairs(n uint64, depth int) {
	var prev []byte
	for i := uint64(0); i < n && r.err == nil; i++ {
		key := r.off
		if key >= len(r.b) {
			r.fail(key, "unexpected end of input", false)
			return
		}
		if m := r.b[key] >> 5; m != 0 && m != 1 && m != 3 {
			r.fail(key, "map key is not an integer or text string", false)
			return
		}
		r.item(depth + 1)
		if r.err != nil {
			return
		}
		if prev != nil && bytes.Compare(prev, r.b[key:r.off]) >= 0 {
			r.fail(key, "map keys not in canonical order or duplicated", false)
			return
		}
		prev = r.b[key:r.off]
		r.item(depth + 1)
	}
}
