package escape

import (
	"slices"
	"testing"
	"unicode"
)

// TestASCII: what a person approving sees, and what they are told, for
// each character that can pass for another or for nothing.
func TestASCII(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		nonASCII       bool
		scripts        []string
		mixed          bool
		invisible      []rune
		unassigned     []rune
	}{
		{"plain ASCII", "alice@example.com", "alice@example.com", false, []string{"Latin"}, false, nil, nil},
		{"empty", "", "", false, nil, false, nil, nil},
		{"digits and punctuation", "42 {}[]~", "42 {}[]~", false, nil, false, nil, nil},
		{"tab and newline", "a\tb\nc\rd", `a\u0009b\u000ac\u000dd`, false, []string{"Latin"}, false, nil, nil},
		{"other controls", "a\x1b[2Jb\x00\x7f", `a\u001b[2Jb\u0000\u007f`, false, []string{"Latin"}, false, []rune{0x1b, 0, 0x7f}, nil},
		{"backslash imitating an escape", `ex\u0430mple`, `ex\\u0430mple`, false, []string{"Latin"}, false, nil, nil},
		{"Cyrillic a in a Latin domain", "alice@ex\u0430mple.com", `alice@ex\u0430mple.com`, true, []string{"Latin", "Cyrillic"}, true, nil, nil},
		{"Cyrillic alone", "Женя", `\u0416\u0435\u043d\u044f`, true, []string{"Cyrillic"}, false, nil, nil},
		{"Greek and Latin", "\u0391BC", `\u0391BC`, true, []string{"Greek", "Latin"}, true, nil, nil},
		{"Japanese", "東京タワーと", `\u6771\u4eac\u30bf\u30ef\u30fc\u3068`, true, []string{"Han", "Katakana", "Hiragana"}, false, nil, nil},
		{"Latin with an accent", "caf\u00e9", `caf\u00e9`, true, []string{"Latin"}, false, nil, nil},
		{"variation selector", "bob\ufe0f", `bob\ufe0f`, true, []string{"Latin"}, false, []rune{0xfe0f}, nil},
		{"combining grapheme joiner", "bo\u034fb", `bo\u034fb`, true, []string{"Latin"}, false, []rune{0x34f}, nil},
		{"Hangul filler", "\u3164bob", `\u3164bob`, true, []string{"Hangul", "Latin"}, false, []rune{0x3164}, nil},
		{"unassigned default-ignorable", "bob\u2065", `bob\u2065`, true, []string{"Latin"}, false, []rune{0x2065}, []rune{0x2065}},
		{"variation selector supplement", "bob\U000e0100", `bob\U000e0100`, true, []string{"Latin"}, false, []rune{0xe0100}, nil},
		{"no-break space", "alice\u00a0smith", `alice\u00a0smith`, true, []string{"Latin"}, false, []rune{0xa0}, nil},
		{"ideographic space", "a\u3000b", `a\u3000b`, true, []string{"Latin"}, false, []rune{0x3000}, nil},
		{"zero width space", "a\u200bb", `a\u200bb`, true, []string{"Latin"}, false, []rune{0x200b}, nil},
		{"right-to-left override", "a\u202eb", `a\u202eb`, true, []string{"Latin"}, false, []rune{0x202e}, nil},
		{"line separator", "a\u2028b", `a\u2028b`, true, []string{"Latin"}, false, []rune{0x2028}, nil},
		{"blank braille pattern", "a\u2800b", `a\u2800b`, true, []string{"Latin", "Braille"}, true, []rune{0x2800}, nil},
		{"emoji", "ok \U0001f600", `ok \U0001f600`, true, []string{"Latin"}, false, nil, nil},
		{"emoji presentation", "\u2764\ufe0f", `\u2764\ufe0f`, true, nil, false, []rune{0xfe0f}, nil},
		{"assigned after 15.0.0", "\u1c89", `\u1c89`, true, nil, false, nil, []rune{0x1c89}},
		{"noncharacter", "\uffff", `\uffff`, true, nil, false, nil, []rune{0xffff}},
		{"each once", "\ufe0f\ufe0f\u2065\u2065", `\ufe0f\ufe0f\u2065\u2065`, true, nil, false, []rune{0xfe0f, 0x2065}, []rune{0x2065}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ASCII(c.in); got != c.want {
				t.Errorf("ASCII(%+q) = %s, want %s", c.in, got, c.want)
			}
			tr := Describe(c.in)
			if tr.NonASCII != c.nonASCII || tr.Mixed() != c.mixed || tr.NotUTF8 {
				t.Errorf("Describe(%+q): non-ASCII %v, mixed %v, not UTF-8 %v; want %v, %v, false", c.in, tr.NonASCII, tr.Mixed(), tr.NotUTF8, c.nonASCII, c.mixed)
			}
			if !slices.Equal(tr.Scripts, c.scripts) || !slices.Equal(tr.Invisible, c.invisible) || !slices.Equal(tr.Unassigned, c.unassigned) {
				t.Errorf("Describe(%+q): scripts %v, invisible %U, unassigned %U; want %v, %U, %U", c.in, tr.Scripts, tr.Invisible, tr.Unassigned, c.scripts, c.invisible, c.unassigned)
			}
		})
	}
}

func TestDescribeOther(t *testing.T) {
	if tr := Describe("a\xffb"); !tr.NotUTF8 || !tr.NonASCII {
		t.Errorf("a byte that is not UTF-8: %+v", tr)
	}
	if tr := Describe("a\ue000"); !slices.Equal(tr.Private, []rune{0xe000}) || len(tr.Unassigned) > 0 {
		t.Errorf("private use: %+v", tr)
	}
}

func TestQuoteJSON(t *testing.T) {
	for _, c := range []struct {
		f        func(string) string
		in, want string
	}{
		{Quote, `say "hi" \ ` + "\u0430", `"say \"hi\" \\ \u0430"`},
		{Quote, "", `""`},
		{JSON, "{\n  \"to\": \"a\\\\b\u0430\",\n  \"t\": \"\\n\"\n}", "{\n  \"to\": \"a\\\\b\\u0430\",\n  \"t\": \"\\n\"\n}"},
		{JSON, "\"\U000e0100\t\"", `"\U000e0100\u0009"`},
		{ASCII, "a\xffb", `a\xffb`},
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("%+q: %s, want %s", c.in, got, c.want)
		}
	}
}

// TestASCIIOnly: whatever the input, ASCII and Quote write printable
// ASCII only, and JSON that and newlines.
func TestASCIIOnly(t *testing.T) {
	var all []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r < 0xd800 || r > 0xdfff {
			all = append(all, r)
		}
	}
	in := string(all) + "\xff\xc0"
	for name, out := range map[string]string{"ASCII": ASCII(in), "Quote": Quote(in), "JSON": JSON(in)} {
		for i := 0; i < len(out); i++ {
			if b := out[i]; (b < 0x20 || b > 0x7e) && !(name == "JSON" && b == '\n') {
				t.Fatalf("%s wrote byte %#x", name, b)
			}
		}
	}
}

// TestControlsCategories: every character of categories Cc, Cf, Zl and
// Zp is escaped (U+200B–U+200F, U+2060, U+FEFF, U+00AD, the tag
// characters U+E0001–U+E007F…), every other is kept.
func TestControlsCategories(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		want := unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
		in := string(r)
		got := string(Controls(nil, []byte(in)))
		if escaped := got != in; escaped != want {
			t.Errorf("U+%04X (%s): escaped %v, want %v", r, got, escaped, want)
		}
	}
	for r, want := range map[rune]string{0x200b: `\u200b`, 0xfeff: `\ufeff`, 0x2060: `\u2060`, 0xe0041: `\U000e0041`, '\n': `\n`, 0x1b: `\x1b`, '\t': `\t`} {
		if got := string(Controls(nil, []byte(string(r)))); got != want {
			t.Errorf("U+%04X: %s, want %s", r, got, want)
		}
	}
	if got := string(Controls(nil, []byte("a\xffb\\"))); got != `a\xffb\` {
		t.Errorf("a byte that is not UTF-8: %s", got)
	}
}
