// Package printable is the format's rule of printable characters
// (spec/CAVEATS.md, "Printable"), pinned to Unicode 15.0.0 so that a Go
// release with newer Unicode tables does not change which tickets decode
// or which characters a person is told are unassigned.
package printable

import "unicode"

//go:generate go run ../genprintable -o table.go

// Is reports whether r is printable: U+0020–U+007E, or a code point whose
// General Category in Unicode 15.0.0 is a letter, mark, number,
// punctuation or symbol (Table).
func Is(r rune) bool {
	if r < 0x80 {
		return r >= 0x20 && r < 0x7f
	}
	return unicode.Is(Table, r)
}

// Unassigned reports whether r is a code point Unicode 15.0.0 does not
// assign (General Category Cn; the noncharacters, such as U+FFFF, are Cn
// too). A code point that is not printable (Table) is assigned only as a
// control (Cc), format character (Cf), separator (Z*), surrogate (Cs) or
// private-use character (Co). Cc, Cs and Co never change; Cf and Z gain a
// character rarely, and a toolchain newer than 15.0.0 that knows one
// judges it a format character or separator rather than unassigned. A
// letter, mark, number, punctuation or symbol assigned after 15.0.0 is
// unassigned here whatever the toolchain.
func Unassigned(r rune) bool {
	if r < 0 || r > unicode.MaxRune {
		return true
	}
	return !Is(r) && !unicode.In(r, unicode.Cc, unicode.Cf, unicode.Z, unicode.Cs, unicode.Co)
}
