package wire

import "github.com/tickettool/tickettool/caveat"

// CaveatDecoder decodes the caveat maps that lie in one buffer, such as
// the blocks of one ticket, in a single pass over their bytes. Each value
// is decoded and checked exactly as DecodeCaveat decodes it, but the results
// share storage: every string is a substring of one copy of the buffer,
// lists take their entries from shared chunks, and the caveats go first
// into room the caller provides. A ticket's caveats then cost a few
// allocations whatever their number, which matters on a verifier's hot
// path. The results never alias the buffer; their strings keep the one
// copy of all of it in memory while any of them lives.
//
// A CaveatDecoder is for one goroutine.
type CaveatDecoder struct {
	src     source
	entries []string        // spare room for list entries
	cavs    []caveat.Caveat // spare room for caveats
}

// NewCaveatDecoderView is NewCaveatDecoder for a caller that holds buf's
// bytes also as the string s (s == string(buf)), such as a verifier that
// keeps both views of one pooled buffer: the results' strings are
// substrings of s, their lists take entries from the room entries while
// it lasts, and nothing is copied but holder and unknown values. Unlike
// NewCaveatDecoder's, the results alias buf through s: they are valid as
// long as buf is neither modified nor reused.
func NewCaveatDecoderView(buf []byte, s string, room []caveat.Caveat, entries []string) CaveatDecoder {
	if len(s) != len(buf) {
		panic("wire: internal error: a caveat decoder's string is not its buffer")
	}
	return CaveatDecoder{src: source{b: buf, s: s, made: true},
		cavs: room[:0:cap(room)], entries: entries[:0:cap(entries)]}
}

// UseEntries gives d room for the entries of its lists, which they take
// first (before allocating), like the room NewCaveatDecoder takes for
// caveats.
func (d *CaveatDecoder) UseEntries(room []string) { d.entries = room[:0:cap(room)] }

// NewCaveatDecoder returns a CaveatDecoder for caveat maps inside buf,
// which the caller must not modify while it uses the decoder. Decoded
// caveats go into room (which may be nil) while it lasts.
func NewCaveatDecoder(buf []byte, room []caveat.Caveat) CaveatDecoder {
	return CaveatDecoder{src: source{b: buf}, cavs: room[:0:cap(room)]}
}

// DecodeMap decodes the caveat map that starts at buf[start] and lies
// within buf[:end]: a block's field 4 (spec/FORMAT.md §3), a CBOR map from
// kind (an unsigned integer, not 0) to the kind's value, in core
// deterministic encoding, with kinds strictly ascending, at most
// MaxCaveatsPerBlock pairs, nesting as inside a block (the map two levels
// deep) and within TicketLimits, the map's own size included. It returns
// the caveats in kind order and the offset just past the map. Every error
// is a *caveat.Error wrapping caveat.ErrSyntax; its Kind is that of the
// value at fault, 0 for the map.
func (d *CaveatDecoder) DecodeMap(start, end int) ([]caveat.Caveat, int, error) {
	if start < 0 || end < start || end > len(d.src.b) {
		return nil, 0, syntaxErr(0, "caveat map lies outside the decoder's buffer")
	}
	r := NewReader(d.src.b[:end], TicketLimits())
	r.Seek(start)
	if r.Peek() != 5 {
		return nil, 0, syntaxErr(0, "caveats are not a map")
	}
	n := r.Map()
	switch {
	case r.Failed():
		return nil, 0, syntaxErr(0, "%s", r.failure("caveat map", start))
	case n > MaxCaveatsPerBlock:
		return nil, 0, syntaxErr(0, "more than %d caveats", MaxCaveatsPerBlock)
	case n == 0:
		return nil, r.Offset(), nil
	}
	cavs := takeRoom(&d.cavs, n, cavChunk)
	var prev uint64
	for j := range cavs {
		kind := r.Uint()
		switch {
		case r.WrongType():
			return nil, 0, syntaxErr(0, "a caveat kind is not an unsigned integer")
		case r.Failed():
			return nil, 0, syntaxErr(0, "%s", r.failure("caveat map", start))
		case kind == 0:
			return nil, 0, syntaxErr(0, "caveat kind 0 is reserved")
		case j > 0 && kind <= prev:
			return nil, 0, syntaxErr(caveat.Kind(kind), "caveat kinds are not in ascending order or repeat")
		}
		prev = kind
		cavs[j] = caveat.Caveat{} // room may hold an earlier ticket's caveats
		if err := decodeInto(&cavs[j], caveat.Kind(kind), &r, &d.src, &d.entries, 3); err != nil {
			return nil, 0, err
		}
	}
	if r.Offset()-start > TicketLimits().MaxItemSize {
		return nil, 0, syntaxErr(0, "caveat map larger than %d bytes", TicketLimits().MaxItemSize)
	}
	return cavs, r.Offset(), nil
}

// takeRoom returns room for n values from *spare, allocating a chunk of
// max(n, chunk) when *spare is too small, or exactly n when spare is nil.
// The room is capped at n, so appending to one result never touches the
// next.
func takeRoom[T any](spare *[]T, n, chunk int) []T {
	if spare == nil {
		return make([]T, n)
	}
	if cap(*spare) < n {
		*spare = make([]T, max(n, chunk))
	}
	l := (*spare)[:n:n]
	*spare = (*spare)[n:cap(*spare)]
	return l
}

// source is a byte buffer and, made on first use, its one string copy.
type source struct {
	b    []byte
	s    string
	made bool
}

// sub returns string(b[start:end]) as a substring of the one copy.
func (s *source) sub(start, end int) string {
	if !s.made {
		s.s, s.made = string(s.b), true
	}
	return s.s[start:end]
}
