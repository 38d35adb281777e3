package mcp

import (
	"testing"
	"unicode"
)

// TestEscapeControlsCategories: every character of categories Cc, Cf, Zl
// and Zp is escaped (U+200B–U+200F, U+2060, U+FEFF, U+00AD, the tag
// characters U+E0001–U+E007F…), every other is kept; cmd/tickettool's
// TestEscapeTextCategories checks its escapeText against the same rule.
func TestEscapeControlsCategories(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		want := unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
		in := string(r)
		got := string(escapeControls(nil, []byte(in)))
		if escaped := got != in; escaped != want {
			t.Errorf("U+%04X (%s): escaped %v, want %v", r, got, escaped, want)
		}
	}
	for r, want := range map[rune]string{0x200b: `\u200b`, 0xfeff: `\ufeff`, 0x2060: `\u2060`, 0xe0041: `\U000e0041`, '\n': `\n`, 0x1b: `\x1b`} {
		if got := string(escapeControls(nil, []byte(string(r)))); got != want {
			t.Errorf("U+%04X: %s, want %s", r, got, want)
		}
	}
}
