package caveat

import "testing"

// TestPrintablePinned holds whatever the toolchain: the pinned table
// (internal/printable), not the toolchain, decides (spec/CAVEATS.md,
// "Printable").
func TestPrintablePinned(t *testing.T) {
	for _, c := range []struct {
		r    rune
		want bool
	}{
		{' ', true}, {'~', true}, {0x7f, false}, {0x9f, false}, {0xa0, false}, {0xa1, true}, {0xad, false},
		{0xe9, true}, {0x301, true}, {0x2028, false}, {0x200b, false}, {0xfeff, false}, {0xe000, false},
		{0x1f600, true}, {0x10ffff, false},
		{0x1c89, false},  // CYRILLIC CAPITAL LETTER TJE: Unicode 16.0
		{0x1fbcb, false}, // assigned in Unicode 16.0
		{0x31350, true},  // CJK Extension H: Unicode 15.0
	} {
		s := string(c.r)
		if got := printProblem(s) == ""; got != c.want {
			t.Errorf("U+%04X printable = %v, want %v", c.r, got, c.want)
		}
	}
}
