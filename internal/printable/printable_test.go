package printable

import (
	"strconv"
	"testing"
	"unicode"
)

// TestTable checks the pinned table against the toolchain's Unicode
// tables when they are the version the format pins, rune by rune: exactly
// the letters, marks, numbers, punctuation and symbols, which is
// strconv.IsPrint outside ASCII; and Unassigned is exactly category Cn.
func TestTable(t *testing.T) {
	if unicode.Version != Version {
		t.Skipf("toolchain Unicode %s, table pinned to %s: checked by TestPinned only", unicode.Version, Version)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := r >= 0x80 && unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
		if got := unicode.Is(Table, r); got != want {
			t.Fatalf("U+%04X: table says %v, Unicode %s says %v", r, got, unicode.Version, want)
		}
		if r >= 0x80 && want != strconv.IsPrint(r) {
			t.Fatalf("U+%04X: strconv.IsPrint disagrees", r)
		}
		assigned := unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Z)
		if Unassigned(r) == assigned {
			t.Fatalf("U+%04X: Unassigned %v, Unicode %s assigned %v", r, Unassigned(r), unicode.Version, assigned)
		}
	}
}

// TestPinned holds whatever the toolchain: the table decides.
func TestPinned(t *testing.T) {
	for _, c := range []struct {
		r                   rune
		printable, unassign bool
	}{
		{' ', true, false}, {'~', true, false}, {0x7f, false, false}, {'\n', false, false},
		{0xa0, false, false}, {0x430, true, false}, {0xfe0f, true, false}, {0x34f, true, false},
		{0x3164, true, false}, {0xe0100, true, false}, {0x200b, false, false}, {0xe000, false, false},
		{0x2065, false, true},   // unassigned (default-ignorable)
		{0xffff, false, true},   // a noncharacter
		{0x1c89, false, true},   // CYRILLIC CAPITAL LETTER TJE: Unicode 16.0
		{0x1fbcb, false, true},  // assigned in Unicode 16.0
		{0x31350, true, false},  // CJK Extension H: Unicode 15.0
		{0x10ffff, false, true}, // a noncharacter
		{-1, false, true}, {unicode.MaxRune + 1, false, true},
	} {
		if got := Is(c.r); got != c.printable {
			t.Errorf("Is(U+%04X) = %v, want %v", c.r, got, c.printable)
		}
		if got := Unassigned(c.r); got != c.unassign {
			t.Errorf("Unassigned(U+%04X) = %v, want %v", c.r, got, c.unassign)
		}
	}
}
