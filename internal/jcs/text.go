package jcs

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// str reads a string at p.off (which holds '"') and returns it unescaped.
func (p *parser) str() (string, bool) {
	p.off++
	var b []byte
	for {
		if p.off >= len(p.in) {
			p.fail("unterminated string")
			return "", false
		}
		c := p.in[p.off]
		switch {
		case c == '"':
			p.off++
			return string(b), true
		case c < 0x20:
			p.fail("control character in a string")
			return "", false
		case c == '\\':
			r, ok := p.escape()
			if !ok {
				return "", false
			}
			b = utf8.AppendRune(b, r)
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.off++
		default:
			r, n := utf8.DecodeRune(p.in[p.off:])
			if r == utf8.RuneError && n <= 1 {
				p.fail("invalid UTF-8")
				return "", false
			}
			b = append(b, p.in[p.off:p.off+n]...)
			p.off += n
		}
	}
}

// The one-character escapes of RFC 8259 §7 and what they stand for.
const (
	escapable = "\"\\/bfnrt"
	unescaped = "\"\\/\b\f\n\r\t"
)

// escape reads one escape sequence at p.off (which holds '\'); a high
// surrogate must be followed by an escaped low one (RFC 8259 §7). A lone
// surrogate is noted, and read as U+FFFD (as encoding/json reads it) so
// that reading goes on.
func (p *parser) escape() (rune, bool) {
	if p.off+1 >= len(p.in) {
		p.fail("unterminated string")
		return 0, false
	}
	c := p.in[p.off+1]
	if c != 'u' {
		i := strings.IndexByte(escapable, c)
		if i < 0 {
			p.fail("invalid escape")
			return 0, false
		}
		p.off += 2
		return rune(unescaped[i]), true
	}
	r1, ok := p.hex4()
	if !ok {
		return 0, false
	}
	switch {
	case r1 >= 0xDC00 && r1 <= 0xDFFF:
		p.note(p.off, "lone low surrogate")
		return utf8.RuneError, true
	case r1 < 0xD800 || r1 > 0xDBFF:
		return r1, true
	}
	if p.off+1 >= len(p.in) || p.in[p.off] != '\\' || p.in[p.off+1] != 'u' {
		p.note(p.off, "lone high surrogate")
		return utf8.RuneError, true
	}
	after := p.off
	r2, ok := p.hex4()
	if !ok {
		return 0, false
	}
	if r2 < 0xDC00 || r2 > 0xDFFF {
		p.note(after, "lone high surrogate")
		p.off = after // the second escape is read again, on its own
		return utf8.RuneError, true
	}
	return utf16.DecodeRune(r1, r2), true
}

// hex4 reads \uXXXX at p.off.
func (p *parser) hex4() (rune, bool) {
	if len(p.in)-p.off < 6 {
		p.fail("short \\u escape")
		return 0, false
	}
	var r rune
	for _, c := range p.in[p.off+2 : p.off+6] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			p.fail("invalid \\u escape")
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	p.off += 6
	return r, true
}

// appendString writes s as RFC 8785 §3.2.2.2 says: '"' and '\' escaped
// with a backslash, U+0008, U+0009, U+000A, U+000C and U+000D as \b, \t,
// \n, \f and \r, the other controls below U+0020 as \u00xx (lowercase
// hex), everything else as is.
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\t':
			out = append(out, '\\', 't')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// number reads a number (RFC 8259 §6 grammar) and writes it as RFC 8785
// §3.2.2.3 says.
func (p *parser) number() {
	start := p.off
	if p.in[p.off] == '-' {
		p.off++
	}
	switch {
	case p.off < len(p.in) && p.in[p.off] == '0':
		p.off++
	case p.digits() == 0:
		p.fail("invalid number")
		return
	}
	if p.off < len(p.in) && p.in[p.off] == '.' {
		p.off++
		if p.digits() == 0 {
			p.fail("invalid number")
			return
		}
	}
	if p.off < len(p.in) && (p.in[p.off] == 'e' || p.in[p.off] == 'E') {
		p.off++
		if p.off < len(p.in) && (p.in[p.off] == '+' || p.in[p.off] == '-') {
			p.off++
		}
		if p.digits() == 0 {
			p.fail("invalid number")
			return
		}
	}
	f, err := strconv.ParseFloat(string(p.in[start:p.off]), 64)
	if err != nil || math.IsInf(f, 0) {
		p.note(start, "number beyond the range of an IEEE 754 double")
		p.out = append(p.out, '0') // never returned: reading goes on
		return
	}
	mark := len(p.out)
	p.out = appendNumber(p.out, f)
	if !sameDecimal(p.in[start:p.off], p.out[mark:]) {
		p.note(start, "number would change its value in canonical form (a double cannot hold it exactly)")
	}
}

func (p *parser) digits() int {
	n := 0
	for p.off < len(p.in) && p.in[p.off] >= '0' && p.in[p.off] <= '9' {
		p.off++
		n++
	}
	return n
}
