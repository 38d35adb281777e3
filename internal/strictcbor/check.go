package strictcbor

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"
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
	c := checker{b: data, lim: lim}
	end, err := c.item(0, 1)
	if err != nil {
		return 0, err
	}
	if lim.MaxItemSize > 0 && end > lim.MaxItemSize {
		return 0, &Error{Offset: 0, Reason: "item larger than " + strconv.Itoa(lim.MaxItemSize) + " bytes"}
	}
	return end, nil
}

type checker struct {
	b   []byte
	lim Limits
}

func fail(off int, reason string) error { return &Error{Offset: off, Reason: reason} }

// head decodes the head at off and returns major type, argument and the
// offset just past the head.
func (c *checker) head(off int) (major byte, arg uint64, next int, err error) {
	if off >= len(c.b) {
		return 0, 0, 0, fail(off, "unexpected end of input")
	}
	ib := c.b[off]
	major, ai := ib>>5, ib&0x1f
	switch {
	case ai < 24:
		return major, uint64(ai), off + 1, nil
	case ai == 31:
		return 0, 0, 0, fail(off, "indefinite length")
	case ai > 27:
		return 0, 0, 0, fail(off, "reserved additional information")
	}
	size := 1 << (ai - 24)
	if len(c.b)-off-1 < size {
		return 0, 0, 0, fail(off, "unexpected end of input")
	}
	p := c.b[off+1 : off+1+size]
	var min uint64
	switch size {
	case 1:
		arg, min = uint64(p[0]), 24
	case 2:
		arg, min = uint64(binary.BigEndian.Uint16(p)), 1<<8
	case 4:
		arg, min = uint64(binary.BigEndian.Uint32(p)), 1<<16
	default:
		arg, min = binary.BigEndian.Uint64(p), 1<<32
	}
	if major == 7 {
		return 0, 0, 0, fail(off, "floating-point or simple value")
	}
	if arg < min {
		return 0, 0, 0, fail(off, "integer or length not in shortest form")
	}
	return major, arg, off + 1 + size, nil
}

func (c *checker) item(off, depth int) (int, error) {
	major, arg, next, err := c.head(off)
	if err != nil {
		return 0, err
	}
	rest := uint64(len(c.b) - next)
	switch major {
	case 0, 1:
		return next, nil
	case 2:
		if c.lim.MaxBytes > 0 && arg > uint64(c.lim.MaxBytes) {
			return 0, fail(off, "byte string too long")
		}
		if arg > rest {
			return 0, fail(off, "unexpected end of input")
		}
		return next + int(arg), nil
	case 3:
		if c.lim.MaxText > 0 && arg > uint64(c.lim.MaxText) {
			return 0, fail(off, "text string too long")
		}
		if arg > rest {
			return 0, fail(off, "unexpected end of input")
		}
		end := next + int(arg)
		if !utf8.Valid(c.b[next:end]) {
			return 0, fail(off, "text string is not valid UTF-8")
		}
		return end, nil
	case 4, 5:
		if depth > c.lim.MaxDepth {
			return 0, fail(off, "nesting deeper than "+strconv.Itoa(c.lim.MaxDepth))
		}
		if c.lim.MaxItems > 0 && arg > uint64(c.lim.MaxItems) {
			return 0, fail(off, "too many entries")
		}
		// No shortcut when arg exceeds the bytes left: the entries present
		// are checked in turn, so "unexpected end of input" means every
		// byte before the end is a canonical prefix (chain tells a torn
		// receipt tail from damage by it). Each entry takes at least one
		// byte, so the loop ends with the input.
		if major == 4 {
			for i := uint64(0); i < arg; i++ {
				if next, err = c.item(next, depth+1); err != nil {
					return 0, err
				}
			}
			return next, nil
		}
		prevStart, prevEnd := -1, -1
		for i := uint64(0); i < arg; i++ {
			if next >= len(c.b) {
				return 0, fail(next, "unexpected end of input")
			}
			if m := c.b[next] >> 5; m != 0 && m != 1 && m != 3 {
				return 0, fail(next, "map key is not an integer or text string")
			}
			keyEnd, err := c.item(next, depth+1)
			if err != nil {
				return 0, err
			}
			if prevStart >= 0 && bytes.Compare(c.b[prevStart:prevEnd], c.b[next:keyEnd]) >= 0 {
				return 0, fail(next, "map keys not in canonical order or duplicated")
			}
			prevStart, prevEnd = next, keyEnd
			if next, err = c.item(keyEnd, depth+1); err != nil {
				return 0, err
			}
		}
		return next, nil
	case 6:
		return 0, fail(off, "tags are not allowed")
	default: // 7 with a one-byte head
		if arg == 20 || arg == 21 {
			return next, nil
		}
		return 0, fail(off, "simple value other than false or true")
	}
}
