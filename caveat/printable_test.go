package caveat

import (
	"strconv"
	"testing"
	"unicode"
)

// TestPrintableTable checks the pinned table against the toolchain's
// Unicode tables when they are the version the format pins, rune by rune:
// exactly the letters, marks, numbers, punctuation and symbols, which is
// strconv.IsPrint outside ASCII.
func TestPrintableTable(t *testing.T) {
	if unicode.Version != printableVersion {
		t.Skipf("toolchain Unicode %s, table pinned to %s: checked by TestPrintablePinned only", unicode.Version, printableVersion)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := r >= 0x80 && unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
		if got := unicode.Is(printableTable, r); got != want {
			t.Fatalf("U+%04X: table says %v, Unicode %s says %v", r, got, unicode.Version, want)
		}
		if r >= 0x80 && want != strconv.IsPrint(r) {
			t.Fatalf("U+%04X: strconv.IsPrint disagrees", r)
		}
	}
}

// TestPrintablePinned holds whatever the toolchain: the table, not the
// toolchain, decides (spec/CAVEATS.md, "Printable").
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
