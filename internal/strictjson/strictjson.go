// Package strictjson is a minimal strict RFC 8259 scanner: the JSON of
// DPoP proofs (spec/FORMAT.md §4.5 steps 2 and 7) and of holder JWKs
// (§4.4). It checks one text against the lexical rules of §4.5 step 2
// (valid UTF-8, no lone surrogate escapes, nesting at most MaxDepth, no two
// members of one object named alike at any depth, names compared after
// unescaping) and reads members and strings in place, so that package
// dpop and package key decode the same texts the same way. go-jose's JSON
// package, with a lexical scan for what it lacks, is its reference
// (dpop/reference_test.go, dpop/reference_jws_test.go).
package strictjson

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads B from offset I.
type Scanner struct {
	B []byte
	I int
	// Dups makes Skip refuse an object with two members named alike.
	Dups bool
}

// WS skips whitespace.
func (p *Scanner) WS() {
	for p.I < len(p.B) {
		switch p.B[p.I] {
		case ' ', '\t', '\n', '\r':
			p.I++
		default:
			return
		}
	}
}

// Eat moves past c if it is next.
func (p *Scanner) Eat(c byte) bool {
	if p.I < len(p.B) && p.B[p.I] == c {
		p.I++
		return true
	}
	return false
}

// Str reads a string and returns its unescaped bytes (aliasing b when it
// has no escapes). It refuses control characters, bad escapes, lone
// surrogates and invalid UTF-8.
func (p *Scanner) Str() ([]byte, bool) {
	if !p.Eat('"') {
		return nil, false
	}
	start := p.I
	for p.I < len(p.B) {
		c := p.B[p.I]
		if c == '"' {
			p.I++
			return p.B[start : p.I-1], true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.I++
	}
	out := append([]byte(nil), p.B[start:p.I]...)
	for p.I < len(p.B) {
		c := p.B[p.I]
		switch {
		case c == '"':
			p.I++
			return out, true
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(p.B[p.I:])
			if r == utf8.RuneError && n <= 1 {
				return nil, false
			}
			out = append(out, p.B[p.I:p.I+n]...)
			p.I += n
		case c != '\\':
			out = append(out, c)
			p.I++
		default:
			r, ok := p.escape()
			if !ok {
				return nil, false
			}
			out = utf8.AppendRune(out, r)
		}
	}
	return nil, false
}

// escape reads one escape sequence at a backslash.
func (p *Scanner) escape() (rune, bool) {
	if p.I+1 >= len(p.B) {
		return 0, false
	}
	e := p.B[p.I+1]
	p.I += 2
	switch e {
	case '"', '\\', '/':
		return rune(e), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := p.hex4()
		if !ok || !utf16.IsSurrogate(r) {
			return r, ok
		}
		if r >= 0xdc00 || p.I+1 >= len(p.B) || p.B[p.I] != '\\' || p.B[p.I+1] != 'u' {
			return 0, false
		}
		p.I += 2
		lo, ok := p.hex4()
		if !ok || lo < 0xdc00 || lo > 0xdfff {
			return 0, false
		}
		return utf16.DecodeRune(r, lo), true
	}
	return 0, false
}

func (p *Scanner) hex4() (rune, bool) {
	if p.I+4 > len(p.B) {
		return 0, false
	}
	var r rune
	for _, c := range p.B[p.I : p.I+4] {
		v, ok := unhex(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	p.I += 4
	return r, true
}

// Number reads a JSON number literal and returns its bytes.
func (p *Scanner) Number() ([]byte, bool) {
	start := p.I
	p.Eat('-')
	if !p.Eat('0') && !p.digits() {
		return nil, false
	}
	if p.Eat('.') && !p.digits() {
		return nil, false
	}
	if p.Eat('e') || p.Eat('E') {
		if !p.Eat('+') {
			p.Eat('-')
		}
		if !p.digits() {
			return nil, false
		}
	}
	return p.B[start:p.I], true
}

func (p *Scanner) digits() bool {
	start := p.I
	for p.I < len(p.B) && '0' <= p.B[p.I] && p.B[p.I] <= '9' {
		p.I++
	}
	return p.I > start
}

// Skip checks the syntax of one value and moves past it.
func (p *Scanner) Skip(depth int) bool {
	if depth > MaxDepth || p.I >= len(p.B) {
		return false
	}
	switch c := p.B[p.I]; {
	case c == '"':
		_, ok := p.Str()
		return ok
	case c == '{' || c == '[':
		p.I++
		p.WS()
		end := c + 2 // '}' or ']'
		if p.Eat(end) {
			return true
		}
		var names *MemberSet
		if c == '{' && p.Dups {
			names = new(MemberSet)
		}
		for {
			p.WS()
			if c == '{' {
				if k, ok := p.Str(); !ok || names != nil && !names.Add(string(k)) {
					return false
				}
				p.WS()
				if !p.Eat(':') {
					return false
				}
				p.WS()
			}
			if !p.Skip(depth + 1) {
				return false
			}
			p.WS()
			if p.Eat(',') {
				continue
			}
			return p.Eat(end)
		}
	case c == '-' || '0' <= c && c <= '9':
		_, ok := p.Number()
		return ok
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(p.B)-p.I >= len(lit) && string(p.B[p.I:p.I+len(lit)]) == lit {
			p.I += len(lit)
			return true
		}
	}
	return false
}

// MemberSet holds the member names of one JSON object, to find one named
// twice: a short list searched in order, then a map.
type MemberSet struct {
	list []string
	set  map[string]struct{}
}

// Add adds k and reports whether it was new.
func (m *MemberSet) Add(k string) bool {
	if m.set != nil {
		if _, dup := m.set[k]; dup {
			return false
		}
		m.set[k] = struct{}{}
		return true
	}
	for _, o := range m.list {
		if o == k {
			return false
		}
	}
	if m.list = append(m.list, k); len(m.list) > smallMemberSet {
		m.set = make(map[string]struct{}, 2*len(m.list))
		for _, o := range m.list {
			m.set[o] = struct{}{}
		}
	}
	return true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
