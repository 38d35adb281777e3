package jcs

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

var (
	// ErrMalformed matches (errors.Is) every error of Canonical.
	ErrMalformed = errors.New("jcs: malformed JSON")
	// ErrFoldCollision matches (errors.Is) the error of Canonical for an
	// object, at any depth, two of whose member names are equal under
	// case folding ([FoldName]), identical names included: a server
	// matching names as encoding/json does reads them as one member, the
	// last it sees, while the canonical form keeps both in sorted order.
	ErrFoldCollision = errors.New("jcs: member names equal under case folding")
)

// Error says where and why Canonical refused its input.
type Error struct {
	Offset int    // byte offset into the input
	Reason string // never quotes the input
	fold   bool   // two member names collide under case folding
}

func (e *Error) Error() string {
	return "jcs: byte " + strconv.Itoa(e.Offset) + ": " + e.Reason
}

// Unwrap returns ErrMalformed.
func (e *Error) Unwrap() error { return ErrMalformed }

// Is reports whether target is ErrFoldCollision and e is that refusal.
func (e *Error) Is(target error) bool { return e.fold && target == ErrFoldCollision }

// Canonical returns the RFC 8785 canonical form of in, which must be one
// JSON value (RFC 8259) with optional surrounding whitespace, within the
// package's limits and rules (see the package doc). Every error is an
// *Error wrapping ErrMalformed. Of several problems it names the first,
// except that a number that would change its value and a lone surrogate
// escape are named only when nothing else is wrong: reading goes on past
// them, so that names equal under case folding in a later object are
// still reported as such (ErrFoldCollision).
func Canonical(in []byte) ([]byte, error) {
	if len(in) > MaxInputBytes {
		return nil, &Error{Offset: MaxInputBytes, Reason: "input larger than " + strconv.Itoa(MaxInputBytes) + " bytes"}
	}
	p := parser{in: in, out: make([]byte, 0, len(in))}
	p.space()
	p.value(0)
	p.space()
	if p.err == nil && p.off != len(in) {
		p.fail("data after the value")
	}
	switch {
	case p.err != nil:
		return nil, p.err
	case p.noted != nil:
		return nil, p.noted
	}
	return p.out, nil
}

// parser reads in and writes the canonical form to out. The first failure
// stops it; a noted one does not.
type parser struct {
	in    []byte
	off   int
	out   []byte
	err   *Error
	noted *Error   // the first problem reading went on past
	tmp   []byte   // scratch for reordering members
	keys  []byte   // scratch: member names folded (foldCollision)
	spans [][2]int // scratch: where each folded name lies in keys
}

func (p *parser) fail(reason string) {
	if p.err == nil {
		p.err = &Error{Offset: p.off, Reason: reason}
	}
}

// note records a problem at off that leaves the rest readable.
func (p *parser) note(off int, reason string) {
	if p.noted == nil {
		p.noted = &Error{Offset: off, Reason: reason}
	}
}

func (p *parser) space() {
	for p.off < len(p.in) {
		switch p.in[p.off] {
		case ' ', '\t', '\n', '\r':
			p.off++
		default:
			return
		}
	}
}

// value reads one value whose enclosing arrays and objects number depth.
func (p *parser) value(depth int) {
	if p.err != nil {
		return
	}
	if p.off >= len(p.in) {
		p.fail("unexpected end of input")
		return
	}
	if depth > MaxDepth {
		p.fail("nested deeper than " + strconv.Itoa(MaxDepth))
		return
	}
	switch c := p.in[p.off]; {
	case c == '{' || c == '[':
		if c == '{' {
			p.object(depth + 1)
		} else {
			p.array(depth + 1)
		}
	case c == '"':
		s, ok := p.str()
		if ok {
			p.out = appendString(p.out, s)
		}
	case c == '-' || c >= '0' && c <= '9':
		p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.in[p.off:], []byte(lit)) {
				p.off += len(lit)
				p.out = append(p.out, lit...)
				return
			}
		}
		p.fail("not a JSON value")
	}
}

func (p *parser) array(depth int) {
	p.off++ // '['
	p.out = append(p.out, '[')
	p.space()
	if p.off < len(p.in) && p.in[p.off] == ']' {
		p.off++
		p.out = append(p.out, ']')
		return
	}
	for p.err == nil {
		p.space()
		p.value(depth)
		p.space()
		if !p.next(']') {
			return
		}
		p.out = append(p.out, ',')
	}
}

// next reads ',' (true: another item follows) or the closing byte
// (false, written to out); anything else is a failure (false).
func (p *parser) next(closing byte) bool {
	switch {
	case p.err != nil:
		return false
	case p.off >= len(p.in):
		p.fail("unexpected end of input")
		return false
	case p.in[p.off] == ',':
		p.off++
		return true
	case p.in[p.off] == closing:
		p.off++
		p.out = append(p.out, closing)
		return false
	}
	p.fail("want ',' or '" + string(closing) + "'")
	return false
}

// member is one written member: its unescaped name and where its
// canonical "name":value lies in out.
type member struct {
	name       string
	start, end int
}

func (p *parser) object(depth int) {
	p.off++ // '{'
	p.space()
	if p.off < len(p.in) && p.in[p.off] == '}' {
		p.off++
		p.out = append(p.out, "{}"...)
		return
	}
	base := len(p.out)
	var ms []member
	for p.err == nil {
		p.space()
		if p.off >= len(p.in) || p.in[p.off] != '"' {
			p.fail("want a member name")
			return
		}
		name, ok := p.str()
		if !ok {
			return
		}
		start := len(p.out)
		p.out = append(appendString(p.out, name), ':')
		p.space()
		if p.off >= len(p.in) || p.in[p.off] != ':' {
			p.fail("want ':'")
			return
		}
		p.off++
		p.space()
		p.value(depth)
		ms = append(ms, member{name: name, start: start, end: len(p.out)})
		p.space()
		if p.err != nil || p.off >= len(p.in) || p.in[p.off] != ',' {
			break
		}
		p.off++
	}
	switch {
	case p.err != nil:
		return
	case p.off >= len(p.in) || p.in[p.off] != '}':
		p.fail("want ',' or '}'")
		return
	}
	closing := p.off
	p.off++
	slices.SortFunc(ms, func(a, b member) int { return compareUTF16(a.name, b.name) })
	for i := 1; i < len(ms); i++ {
		if ms[i].name == ms[i-1].name {
			p.off = closing
			p.fail("duplicate member name")
			p.err.fold = true
			return
		}
	}
	if p.foldCollision(ms) {
		p.off = closing
		p.fail("member names equal under case folding")
		p.err.fold = true
		return
	}
	p.tmp = append(p.tmp[:0], p.out[base:]...)
	p.out = append(p.out[:base], '{')
	for i, m := range ms {
		if i > 0 {
			p.out = append(p.out, ',')
		}
		p.out = append(p.out, p.tmp[m.start-base:m.end-base]...)
	}
	p.out = append(p.out, '}')
}

// compareUTF16 orders strings by their UTF-16 code units (RFC 8785
// §3.2.3), which differs from byte (code point) order only where a
// character above U+FFFF meets one in U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return int(unit(ra)) - int(unit(rb))
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// unit returns a key that orders runes as their UTF-16 code units do:
// the (first) code unit in the high 16 bits, the second unit of a
// character above U+FFFF, or 0, in the low 16 bits. Valid UTF-8 holds no
// surrogate, so a BMP rune never ties with the high surrogate of another.
func unit(r rune) int {
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		return int(hi)<<16 | int(lo)
	}
	return int(r) << 16
}
