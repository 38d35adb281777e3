// Package escape writes text that came from a ticket, a call's arguments
// or an agent so that a person reads what it is, in one notation: a
// character as \uXXXX (four lowercase hex digits), or \UXXXXXXXX above
// U+FFFF, and a byte that is not UTF-8 as \xXX.
//
// Controls is for logs and messages: only what would drive a terminal,
// forge a line or hide text is escaped (controls, format characters, line
// and paragraph separators), so the rest stays readable. ASCII, Quote and
// JSON are for a person deciding on the text (approving a call): every
// character outside printable ASCII is escaped, so that a look-alike (a
// Cyrillic а for a Latin a), an invisible character (a variation
// selector, a filler, a no-break space) or an unassigned one cannot pass
// for what it imitates; Describe says what the text holds, so that the
// person can be told in words as well.
package escape

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Controls appends s to dst with every control character (C0, DEL, C1),
// every line or paragraph separator, every format character (Unicode
// category Cf: bidirectional controls, zero-width characters, the BOM,
// tags…) and every byte that is not UTF-8 escaped: newline, carriage
// return and tab as \n, \r and \t, other C0 controls and DEL as \xXX. A
// backslash is written as is, since the escapes are for the eye, not to
// be parsed back.
func Controls(dst, s []byte) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		switch {
		case r == utf8.RuneError && n == 1:
			dst = fmt.Appendf(dst, `\x%02x`, s[0])
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20 || r == 0x7f:
			dst = fmt.Appendf(dst, `\x%02x`, r)
		case hidden(r):
			dst = appendCode(dst, r)
		default:
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// hidden reports whether r is a character a terminal does not show as
// itself: a control (Cc), a format character (Cf), a line or paragraph
// separator (Zl, Zp).
func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// ASCII returns s with every character but printable ASCII (U+0020 to
// U+007E) escaped, tab and newline included, and a backslash written as
// \\ so that text cannot imitate an escape.
func ASCII(s string) string {
	return string(appendASCII(nil, s, false, false))
}

// Quote returns s as ASCII does, between double quotes, with a double
// quote in s written as \".
func Quote(s string) string {
	b := appendASCII([]byte{'"'}, s, true, false)
	return string(append(b, '"'))
}

// JSON returns JSON text (one value, indented or not) as ASCII does, but
// with newlines and backslashes kept: in JSON text a backslash only begins
// an escape, and \uXXXX then reads as JSON's own escape of the same
// character (JSON has no \U: a character above U+FFFF shows as
// \UXXXXXXXX, not as a surrogate pair).
func JSON(s string) string {
	return string(appendASCII(nil, s, false, true))
}

func appendASCII(dst []byte, s string, quote, json bool) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = fmt.Appendf(dst, `\x%02x`, s[i])
		case r == '\\' && !json, r == '"' && quote:
			dst = append(dst, '\\', byte(r))
		case r == '\n' && json, r >= 0x20 && r < 0x7f:
			dst = append(dst, byte(r))
		default:
			dst = appendCode(dst, r)
		}
		i += n
	}
	return dst
}

// appendCode appends r as \uXXXX, or \UXXXXXXXX above U+FFFF.
func appendCode(dst []byte, r rune) []byte {
	if r > 0xffff {
		return fmt.Appendf(dst, `\U%08x`, r)
	}
	return fmt.Appendf(dst, `\u%04x`, r)
}

// Code returns r in the package's notation: \uXXXX, or \UXXXXXXXX above
// U+FFFF.
func Code(r rune) string {
	return string(appendCode(nil, r))
}
