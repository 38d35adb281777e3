package jcs

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// FoldName returns name with every code point replaced by the smallest
// code point of its simple case folding class: the classes of the lines
// of status C and S of Unicode 15.0.0's CaseFolding.txt, a code point
// without such a line being alone in its class (CAVEATS.md, "The args
// digest"). Two names are equal under case folding exactly when their
// FoldName are equal. That is how encoding/json matches a member name to
// a struct field, and strings.EqualFold compares, with the toolchain's
// Unicode 15.0.0 tables (TestFoldTable); the table is pinned so that a
// newer toolchain does not change which arguments have a digest.
//
//go:generate go run ../genfold -o fold_table.go
func FoldName(name string) string {
	i := 0
	for i < len(name) && name[i] < utf8.RuneSelf && (name[i] < 'a' || name[i] > 'z') {
		i++
	}
	if i == len(name) {
		return name
	}
	var b strings.Builder
	b.Grow(len(name))
	b.WriteString(name[:i])
	for _, r := range name[i:] {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// foldRune returns the smallest code point of r's class.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	if i, ok := slices.BinarySearchFunc(foldTable[:], r, func(e [2]rune, r rune) int { return int(e[0] - r) }); ok {
		return foldTable[i][1]
	}
	return r
}

// compareFold orders names by their FoldName, without building them: 0
// exactly when the names are equal under case folding.
func compareFold(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if fa, fb := foldRune(ra), foldRune(rb); fa != fb {
			return int(fa - fb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// foldCollision reports whether two of ms (names distinct byte for byte)
// are equal under case folding. idx is scratch space, returned for reuse.
func foldCollision(ms []member, idx []int) (bool, []int) {
	if len(ms) < 2 {
		return false, idx
	}
	idx = idx[:0]
	for i := range ms {
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(i, j int) int { return compareFold(ms[i].name, ms[j].name) })
	for k := 1; k < len(idx); k++ {
		if compareFold(ms[idx[k-1]].name, ms[idx[k]].name) == 0 {
			return true, idx
		}
	}
	return false, idx
}
