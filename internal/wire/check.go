package wire

import "strconv"

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
