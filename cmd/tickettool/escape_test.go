package main

import (
	"testing"
	"unicode"
)

// TestEscapeTextCategories: every character of categories Cc (but
// newline), Cf, Zl and Zp is escaped (U+200B–U+200F, U+2060, U+FEFF,
// U+00AD, the tag characters U+E0001–U+E007F…), every other is kept:
// the rule mcp's TestEscapeControlsCategories checks for its escaping.
func TestEscapeTextCategories(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		want := r != '\n' && unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
		in := string(r)
		got := escapeText(in)
		if escaped := got != in; escaped != want {
			t.Errorf("U+%04X (%s): escaped %v, want %v", r, got, escaped, want)
		}
	}
	for r, want := range map[rune]string{0x200b: `\u200b`, 0xfeff: `\ufeff`, 0x2060: `\u2060`, 0xe0041: `\U000e0041`, '\t': `\u0009`} {
		if got := escapeText(string(r)); got != want {
			t.Errorf("U+%04X: %s, want %s", r, got, want)
		}
	}
}
