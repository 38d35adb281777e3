package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestShown: what approve shows of a value from the ticket or the
// arguments, and what it says of it before asking: every character
// outside printable ASCII as its code, and a warning for mixed scripts,
// invisible and unassigned characters.
func TestShown(t *testing.T) {
	const note = "NOTE: characters outside ASCII in the arguments: each is shown as its code"
	for _, c := range []struct {
		name, in, want string
		told           []string // lines of tell's output, as prefixes; nil: it says nothing
	}{
		{"plain ASCII", "alice@example.com", "alice@example.com", nil},
		{"tab and newline", "a\tb\nc", `a\u0009b\u000ac`, nil},
		{"backslash", `ex\u0430mple`, `ex\\u0430mple`, nil},
		{"Cyrillic a", "alice@ex\u0430mple.com", `alice@ex\u0430mple.com`, []string{note,
			`WARNING: mixed scripts (Latin, Cyrillic) in the arguments, in "alice@ex\u0430mple.com": a letter of one script can pass for a letter of another`}},
		{"Cyrillic alone", "Женя", `\u0416\u0435\u043d\u044f`, []string{note}},
		{"variation selector", "bob\ufe0f", `bob\ufe0f`, []string{note,
			`WARNING: invisible characters (\ufe0f) in the arguments, in "bob\ufe0f": texts that look the same can differ`}},
		{"combining grapheme joiner", "bo\u034fb", `bo\u034fb`, []string{note, `WARNING: invisible characters (\u034f) in the arguments`}},
		{"Hangul filler", "\u3164bob", `\u3164bob`, []string{note, `WARNING: invisible characters (\u3164) in the arguments`}},
		{"unassigned default-ignorable", "bob\u2065", `bob\u2065`, []string{note,
			`WARNING: invisible characters (\u2065) in the arguments`,
			`WARNING: characters unassigned in Unicode 15.0.0 (\u2065) in the arguments, in "bob\u2065": no text should hold them`}},
		{"variation selector supplement", "bob\U000e0100", `bob\U000e0100`, []string{note, `WARNING: invisible characters (\U000e0100) in the arguments`}},
		{"no-break space", "alice\u00a0smith", `alice\u00a0smith`, []string{note, `WARNING: invisible characters (\u00a0) in the arguments`}},
		{"emoji", "ok \U0001f600", `ok \U0001f600`, []string{note}},
		{"private use", "a\ue000", `a\ue000`, []string{note, `WARNING: private-use characters (\ue000) in the arguments`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s shown
			if got := s.text("the arguments", c.in); got != c.want {
				t.Errorf("shown %s, want %s", got, c.want)
			}
			var out bytes.Buffer
			s.tell(&out)
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if c.told == nil {
				if out.Len() != 0 {
					t.Errorf("told %q, want nothing", out.String())
				}
				return
			}
			if len(lines) != len(c.told) {
				t.Fatalf("told %q, want %d lines", out.String(), len(c.told))
			}
			for i, want := range c.told {
				if !strings.HasPrefix(lines[i], want) {
					t.Errorf("line %d: %s\nwant %s…", i, lines[i], want)
				}
			}
		})
	}
}

// TestShownJSON: the arguments' strings are judged one by one (a Cyrillic
// value under a Latin member name is not mixed), and each is shown
// escaped with the JSON's own backslashes kept.
func TestShownJSON(t *testing.T) {
	var s shown
	got := s.json("the arguments", []byte("{\n  \"name\": \"Женя\",\n  \"path\": \"a\\\\b\"\n}"))
	want := "{\n  \"name\": \"\\u0416\\u0435\\u043d\\u044f\",\n  \"path\": \"a\\\\b\"\n}"
	if got != want {
		t.Errorf("shown\n%s\nwant\n%s", got, want)
	}
	if len(s.warnings) != 0 || len(s.nonASCII) != 1 {
		t.Errorf("warnings %q, non-ASCII %q: want none and the arguments", s.warnings, s.nonASCII)
	}
	s = shown{}
	s.json("the arguments", []byte(`{"to":"alice@ex`+"\u0430"+`mple.com","x":[1,"`+"\ufe0f"+`"]}`))
	if len(s.warnings) != 2 {
		t.Errorf("warnings %q: want mixed scripts and invisible", s.warnings)
	}
}
