// Package echo renders caller-supplied text for error messages, the one
// way every package does it: Go-quoted (so control characters and bidi
// tricks never reach a terminal raw), cut at a rune boundary to a bound
// the caller gives and marked "...", and never any part of a value that
// looks like key material, so that a key pasted into the wrong place does
// not end up in a terminal's scrollback or a CI log.
package echo

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hidden stands in for a value that looks like a key.
const Hidden = "(a value that looks like a key; not shown)"

// LooksLikeKey reports whether s may hold key material: a JSON object or
// member (a JWK), or a key file's "PRIVATE+KEY" line.
func LooksLikeKey(s string) bool {
	return strings.Contains(s, "PRIVATE+KEY") || strings.ContainsAny(s, "{}") || strings.Contains(s, `":`)
}

// Cut returns s cut to at most max bytes at a rune boundary, and "..."
// when it was cut ("" otherwise).
func Cut(s string, max int) (string, string) {
	if len(s) <= max {
		return s, ""
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], "..."
}

// Quote returns s Go-quoted and cut to max bytes, or Hidden.
func Quote(s string, max int) string {
	if LooksLikeKey(s) {
		return Hidden
	}
	s, cut := Cut(s, max)
	return strconv.Quote(s) + cut
}
