package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tickettool/tickettool/internal/escape"
	"github.com/tickettool/tickettool/internal/printable"
)

// shown is what approve shows the person of the values it read from the
// ticket or from its own arguments. Each value is written with every
// character outside printable ASCII as its code (escape.ASCII: \u0430,
// \U000e0100; a backslash as \\), so that a look-alike letter, an
// invisible or an unassigned character cannot pass for what it imitates;
// and what the values hold is said in words before the person answers:
// which hold characters outside ASCII, and a warning for each that mixes
// scripts or holds invisible, unassigned or private-use characters.
type shown struct {
	nonASCII []string // names of the values holding characters outside ASCII
	warnings []string
}

// text returns v escaped, and notes what it holds; what names it.
func (s *shown) text(what, v string) string {
	s.note(what, v)
	return escape.ASCII(v)
}

// quote returns v escaped and double-quoted, and notes what it holds.
func (s *shown) quote(what, v string) string {
	s.note(what, v)
	return escape.Quote(v)
}

// list returns the entries of a caveat's list, escaped, comma-separated.
func (s *shown) list(what string, vs []string) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = s.text(what, v)
	}
	return strings.Join(out, ", ")
}

// note records what v holds. Scripts are judged per value: a JSON
// object's member names are Latin whatever its strings are.
func (s *shown) note(what, v string) {
	t := escape.Describe(v)
	if !t.NonASCII {
		return
	}
	if !slices.Contains(s.nonASCII, what) {
		s.nonASCII = append(s.nonASCII, what)
	}
	q := escape.Quote(v)
	if t.Mixed() {
		s.warn("mixed scripts (%s) in %s, in %s: a letter of one script can pass for a letter of another", strings.Join(t.Scripts, ", "), what, q)
	}
	if len(t.Invisible) > 0 {
		s.warn("invisible characters (%s) in %s, in %s: texts that look the same can differ", codes(t.Invisible), what, q)
	}
	if len(t.Unassigned) > 0 {
		s.warn("characters unassigned in Unicode %s (%s) in %s, in %s: no text should hold them", printable.Version, codes(t.Unassigned), what, q)
	}
	if len(t.Private) > 0 {
		s.warn("private-use characters (%s) in %s, in %s: they look as a font likes", codes(t.Private), what, q)
	}
	if t.NotUTF8 {
		s.warn("bytes that are not UTF-8 in %s, in %s", what, q)
	}
}

func (s *shown) warn(format string, args ...any) {
	if w := fmt.Sprintf(format, args...); !slices.Contains(s.warnings, w) {
		s.warnings = append(s.warnings, w)
	}
}

// json returns JSON text (the arguments, canonical and indented) escaped
// as escape.JSON does, and notes each of its strings, member names
// included, as a value of its own.
func (s *shown) json(what string, text []byte) string {
	dec := json.NewDecoder(bytes.NewReader(text))
	for {
		tok, err := dec.Token()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.note(what, string(text)) // not JSON: judged whole
			}
			break
		}
		if str, ok := tok.(string); ok {
			s.note(what, str)
		}
	}
	return escape.JSON(string(text))
}

// tell writes what the values hold: a note naming those with characters
// outside ASCII and how they are shown, then the warnings.
func (s *shown) tell(w io.Writer) {
	if len(s.nonASCII) > 0 {
		fmt.Fprintf(w, "NOTE: characters outside ASCII in %s: each is shown as its code \\uXXXX (\\UXXXXXXXX above U+FFFF; a backslash as \\\\): read the codes, not the letters they look like\n",
			strings.Join(s.nonASCII, ", "))
	}
	for _, x := range s.warnings {
		fmt.Fprintf(w, "WARNING: %s\n", x)
	}
}

// codes writes rs as escape's codes, space-separated.
func codes(rs []rune) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = escape.Code(r)
	}
	return strings.Join(out, " ")
}
