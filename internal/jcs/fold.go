package jcs

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// FoldName returns name with every code point replaced by the smallest
// code point of its simple case folding class: the code points that the
// lines of status C and S of Unicode 15.0.0's CaseFolding.txt map to one
// code point, with that code point (CAVEATS.md, "The args digest"). Two
// names are equal under case folding exactly when their FoldName are
// equal. That is how encoding/json matches a member name to
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
	return string(appendFolded([]byte(name[:i]), name[i:]))
}

// appendFolded appends FoldName(name) to b.
func appendFolded(b []byte, name string) []byte {
	for _, r := range name {
		b = utf8.AppendRune(b, foldRune(r))
	}
	return b
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

// pairwise is the most members an object may have for foldCollision to
// compare every pair of names rather than sort them folded.
const pairwise = 8

// foldCollision reports whether two of ms are equal under case folding.
// A small object's names are compared pair by pair, without allocating;
// a larger one's are folded once each, into p.keys, then sorted and
// compared as bytes, so an object of many long names costs little more
// than reading them.
func (p *parser) foldCollision(ms []member) bool {
	if len(ms) <= pairwise {
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				if equalFold(ms[i].name, ms[j].name) {
					return true
				}
			}
		}
		return false
	}
	p.keys, p.spans = p.keys[:0], p.spans[:0]
	for _, m := range ms {
		start := len(p.keys)
		p.keys = appendFolded(p.keys, m.name)
		p.spans = append(p.spans, [2]int{start, len(p.keys)})
	}
	key := func(s [2]int) []byte { return p.keys[s[0]:s[1]] }
	slices.SortFunc(p.spans, func(a, b [2]int) int { return bytes.Compare(key(a), key(b)) })
	for i := 1; i < len(p.spans); i++ {
		if bytes.Equal(key(p.spans[i-1]), key(p.spans[i])) {
			return true
		}
	}
	return false
}

// equalFold reports whether FoldName(a) == FoldName(b).
func equalFold(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb && foldRune(ra) != foldRune(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return a == b
}
