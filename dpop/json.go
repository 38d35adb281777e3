package dpop

import (
	"unicode/utf16"
	"unicode/utf8"
)

// jparser is a minimal strict RFC 8259 scanner over b: it decodes the
// claims (decodeClaims), checks the protected header's text
// (decodeHeader) and reads the header and the jwk (eachMember). go-jose's
// JSON package, with a lexical scan for what it lacks, is the reference
// they are fuzzed against (reference_test.go, reference_jws_test.go).
type jparser struct {
	b []byte
	i int
	// dups makes skip refuse an object with two members named alike.
	dups bool
}

func (p *jparser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a string and returns its unescaped bytes (aliasing b when it
// has no escapes). It refuses control characters, bad escapes, lone
// surrogates and invalid UTF-8.
func (p *jparser) str() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			p.i++
			return p.b[start : p.i-1], true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return out, true
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, false
			}
			out = append(out, p.b[p.i:p.i+n]...)
			p.i += n
		case c != '\\':
			out = append(out, c)
			p.i++
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
func (p *jparser) escape() (rune, bool) {
	if p.i+1 >= len(p.b) {
		return 0, false
	}
	e := p.b[p.i+1]
	p.i += 2
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
		if r >= 0xdc00 || p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
			return 0, false
		}
		p.i += 2
		lo, ok := p.hex4()
		if !ok || lo < 0xdc00 || lo > 0xdfff {
			return 0, false
		}
		return utf16.DecodeRune(r, lo), true
	}
	return 0, false
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		v, ok := unhex(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	p.i += 4
	return r, true
}

// number reads a JSON number literal and returns its bytes.
func (p *jparser) number() ([]byte, bool) {
	start := p.i
	p.eat('-')
	if !p.eat('0') && !p.digits() {
		return nil, false
	}
	if p.eat('.') && !p.digits() {
		return nil, false
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if !p.digits() {
			return nil, false
		}
	}
	return p.b[start:p.i], true
}

func (p *jparser) digits() bool {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// skip checks the syntax of one value and moves past it.
func (p *jparser) skip(depth int) bool {
	if depth > maxJSONDepth || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, ok := p.str()
		return ok
	case c == '{' || c == '[':
		p.i++
		p.ws()
		end := c + 2 // '}' or ']'
		if p.eat(end) {
			return true
		}
		var names *memberSet
		if c == '{' && p.dups {
			names = new(memberSet)
		}
		for {
			p.ws()
			if c == '{' {
				if k, ok := p.str(); !ok || names != nil && !names.add(string(k)) {
					return false
				}
				p.ws()
				if !p.eat(':') {
					return false
				}
				p.ws()
			}
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat(end)
		}
	case c == '-' || '0' <= c && c <= '9':
		_, ok := p.number()
		return ok
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
			p.i += len(lit)
			return true
		}
	}
	return false
}

// memberSet holds the member names of one JSON object, to find one named
// twice: a short list searched in order, then a map.
type memberSet struct {
	list []string
	set  map[string]struct{}
}

// add adds k and reports whether it was new.
func (m *memberSet) add(k string) bool {
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

// eachMember calls f with the unescaped name and the value text of each
// member of the JSON object v, in order, until f returns false; it
// reports whether v is an object and f never returned false. v must have
// passed the lexical rules already (values are skipped, nested at most
// maxJSONDepth below v).
func eachMember(v []byte, f func(name, value []byte) bool) bool {
	p := jparser{b: v}
	p.ws()
	if !p.eat('{') {
		return false
	}
	for p.ws(); !p.eat('}'); p.eat(',') {
		p.ws()
		name, ok := p.str()
		if p.ws(); !ok || !p.eat(':') {
			return false
		}
		p.ws()
		start := p.i
		if !p.skip(1) || !f(name, v[start:p.i]) {
			return false
		}
		p.ws()
	}
	return true
}
