package escape

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/printable"
)

// Traits are what a text holds that a person deciding on it should be
// told in words, beyond seeing it escaped.
type Traits struct {
	// NonASCII: a character outside ASCII (shown escaped by ASCII).
	NonASCII bool
	// Scripts are the scripts of its characters (Unicode's Script
	// property, the toolchain's tables), but Common and Inherited
	// (digits, punctuation, combining marks shared by scripts), in the
	// order they first occur.
	Scripts []string
	// Invisible are its characters that show as nothing or as a blank:
	// default-ignorable code points (fillers such as U+3164 and U+115F,
	// the combining grapheme joiner U+034F, unassigned ones such as
	// U+2065), variation selectors, format characters, controls but tab,
	// newline and carriage return, every space but U+0020 (U+00A0,
	// U+3000…), line and paragraph separators, and the blank braille
	// pattern U+2800. Each once, in order.
	Invisible []rune
	// Unassigned are its code points that Unicode 15.0.0 (the format's
	// pinned version, internal/printable) does not assign. Each once.
	Unassigned []rune
	// Private are its private-use characters: a font draws them as it
	// likes. Each once.
	Private []rune
	// NotUTF8: it holds a byte that is not UTF-8.
	NotUTF8 bool
}

// Describe returns the traits of s.
func Describe(s string) Traits {
	var t Traits
	var sc scripts
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n == 1 {
			t.NotUTF8, t.NonASCII = true, true
			continue
		}
		if r >= 0x80 {
			t.NonASCII = true
		}
		if name := sc.of(r); name != "" && !slices.Contains(t.Scripts, name) {
			t.Scripts = append(t.Scripts, name)
		}
		switch {
		case printable.Unassigned(r):
			t.Unassigned = appendOnce(t.Unassigned, r)
		case unicode.Is(unicode.Co, r):
			t.Private = appendOnce(t.Private, r)
		}
		if invisible(r) {
			t.Invisible = appendOnce(t.Invisible, r)
		}
	}
	return t
}

// Mixed reports whether the text mixes scripts: more than one, but for
// the combinations one language writes with, as Unicode's "Highly
// Restrictive" level allows them (UTS #39 §5.2): Han with Hiragana and
// Katakana (Japanese), with Hangul (Korean) or with Bopomofo (Chinese),
// each optionally with Latin. Latin with Cyrillic or Greek is mixed.
func (t Traits) Mixed() bool {
	if len(t.Scripts) < 2 {
		return false
	}
	for _, allowed := range [][]string{
		{"Latin", "Han", "Hiragana", "Katakana"},
		{"Latin", "Han", "Hangul"},
		{"Latin", "Han", "Bopomofo"},
	} {
		if !slices.ContainsFunc(t.Scripts, func(s string) bool { return !slices.Contains(allowed, s) }) {
			return false // every script belongs to one writing system
		}
	}
	return true
}

// scripts finds the script of each character of a text, trying the last
// one found first: a text's letters mostly come in runs of one script.
type scripts struct {
	last     *unicode.RangeTable
	lastName string
}

// of returns the name of r's script, or "" for Common, Inherited and a
// code point of no script.
func (sc *scripts) of(r rune) string {
	if r < 0x80 {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return "Latin"
		}
		return ""
	}
	if sc.last != nil && unicode.Is(sc.last, r) {
		return sc.lastName
	}
	if unicode.In(r, unicode.Common, unicode.Inherited) {
		return ""
	}
	for name, table := range unicode.Scripts {
		if unicode.Is(table, r) {
			sc.last, sc.lastName = table, name
			return name
		}
	}
	return ""
}

// invisible reports whether r shows as nothing or as a blank (Traits).
func invisible(r rune) bool {
	switch {
	case r == ' ' || r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r == 0x7f || r == 0x2800:
		return true
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Z, unicode.Variation_Selector,
		unicode.Other_Default_Ignorable_Code_Point)
}

func appendOnce(rs []rune, r rune) []rune {
	if slices.Contains(rs, r) {
		return rs
	}
	return append(rs, r)
}
