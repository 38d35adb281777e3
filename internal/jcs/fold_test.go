package jcs

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// orbit returns r's SimpleFold orbit, r first.
func orbit(r rune) []rune {
	o := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		o = append(o, f)
	}
	return o
}

// TestFoldTable checks the pinned table against the toolchain's Unicode
// tables when they are the version the format pins, for every code point:
// its key is the smallest of its SimpleFold orbit (the key of
// encoding/json's foldName), so every pair strings.EqualFold matches
// collides, and no other pair.
func TestFoldTable(t *testing.T) {
	if unicode.Version != foldVersion {
		t.Skipf("toolchain Unicode %s, table pinned to %s: checked by TestFoldPinned only", unicode.Version, foldVersion)
	}
	pairs := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		o := orbit(r)
		want := r
		for _, f := range o {
			want = min(want, f)
		}
		if got := foldRune(r); got != want {
			t.Fatalf("U+%04X: key U+%04X, want U+%04X (the smallest of its orbit)", r, got, want)
		}
		for _, f := range o[1:] {
			a, b := "x"+string(r), "x"+string(f)
			if !strings.EqualFold(a, b) || FoldName(a) != FoldName(b) || !equalFold(a, b) {
				t.Fatalf("U+%04X and U+%04X: EqualFold %v, FoldName %q %q", r, f, strings.EqualFold(a, b), FoldName(a), FoldName(b))
			}
			pairs++
		}
	}
	if pairs < 2800 {
		t.Fatalf("only %d ordered pairs equal under folding", pairs)
	}
}

// TestFoldEncodingJSON: for every class of more than one code point,
// encoding/json matches each member to a struct field named by another
// (it reads a name as any field whose name folds alike), and each such
// pair collides here. Classes without a letter cannot name a field (a tag
// must be letters and digits) and are covered by TestFoldTable only.
func TestFoldEncodingJSON(t *testing.T) {
	if unicode.Version != foldVersion {
		t.Skipf("toolchain Unicode %s, table pinned to %s", unicode.Version, foldVersion)
	}
	classes, skipped := 0, 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		o := orbit(r)
		if len(o) == 1 || foldRune(r) != r {
			continue // a trivial class, or not its smallest member
		}
		classes++
		var tag rune = -1
		for _, f := range o {
			if unicode.IsLetter(f) {
				tag = f
				break
			}
		}
		if tag < 0 {
			skipped++
			continue
		}
		typ := reflect.StructOf([]reflect.StructField{{Name: "F", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(`json:"a` + string(tag) + `"`)}})
		for _, f := range o {
			v := reflect.New(typ)
			if err := json.Unmarshal([]byte(`{"a`+string(f)+`":1}`), v.Interface()); err != nil || v.Elem().Field(0).Int() != 1 {
				t.Fatalf("U+%04X: encoding/json does not read it as U+%04X: %v", f, tag, err)
			}
			if in := `{"a` + string(f) + `":1,"a` + string(tag) + `":2}`; f != tag {
				if _, err := Canonical([]byte(in)); !errors.Is(err, ErrFoldCollision) {
					t.Fatalf("U+%04X, U+%04X: err = %v, want ErrFoldCollision", f, tag, err)
				}
			}
		}
	}
	if classes < 1400 || skipped > 45 {
		t.Fatalf("%d classes, %d without a letter", classes, skipped)
	}
}

// TestFoldLastWins is the attack the rule stops: encoding/json reads the
// last of two names equal under folding, so the two orders of one object
// are two calls, which RFC 8785 alone would give one canonical form.
func TestFoldLastWins(t *testing.T) {
	var v struct {
		Link struct{ URL string } `json:"link"`
	}
	for _, in := range []string{
		`{"link":{"URL":"https://a.example"},"lin\u212a":{"URL":"https://b.example"}}`,
		`{"lin\u212a":{"URL":"https://b.example"},"link":{"URL":"https://a.example"}}`,
	} {
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		last := in[strings.LastIndex(in, `"URL":"`)+7:]
		if want := last[:strings.IndexByte(last, '"')]; v.Link.URL != want {
			t.Fatalf("%s: encoding/json read %q, want the last, %q", in, v.Link.URL, want)
		}
		if _, err := Canonical([]byte(in)); !errors.Is(err, ErrFoldCollision) {
			t.Fatalf("%s: err = %v, want ErrFoldCollision", in, err)
		}
	}
}

// TestFoldPinned holds whatever the toolchain: the table, not the
// toolchain, decides which names collide.
func TestFoldPinned(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"k", "K", true},
		{"k", "\u212a", true}, // KELVIN SIGN
		{"s", "\u017f", true}, // LATIN SMALL LETTER LONG S
		{"S", "\u017f", true},
		{"\u00c5", "\u212b", true},         // ANGSTROM SIGN
		{"\u00df", "\u1e9e", true},         // ß, capital sharp s: status S
		{"\u00b5", "\u03bc", true},         // MICRO SIGN, mu
		{"\u03c3", "\u03c2", true},         // sigma, final sigma
		{"\u03b8", "\u03d1", true},         // theta, theta symbol
		{"\u0345", "\u1fbe", true},         // ypogegrammeni, prosgegrammeni
		{"\u01c4", "\u01c5", true},         // DŽ, Dž: a title case letter
		{"\u13a0", "\uab70", true},         // Cherokee
		{"\U00010400", "\U00010428", true}, // Deseret
		{"\u24b6", "\u24d0", true},         // circled A, circled a
		{"link", "lin\u212a", true},        // the example of the rule
		{"\u00df", "ss", false},            // full folding only (status F)
		{"\u0130", "i", false},             // Turkic only (status T)
		{"\u0131", "i", false},             // dotless i has no simple folding
		{"lin\u0138", "link", false},       // kra is not a k
		{"\u1c89", "\u1c8a", false},        // Cyrillic TJE: Unicode 16.0
		{"\u00e9", "e\u0301", false},       // no normalisation
		{"\uff41", "a", false},             // fullwidth a is not a
		{"ab", "abc", false},
		{"", "", true},
	} {
		got := FoldName(tc.a) == FoldName(tc.b)
		_, err := Canonical([]byte(`{"` + tc.a + `":1,"` + tc.b + `":2}`))
		pad := `"0":0,"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,`
		_, errLarge := Canonical([]byte(`{` + pad + `"` + tc.a + `":1,"` + tc.b + `":2}`))
		if got != tc.want || equalFold(tc.a, tc.b) != tc.want || errors.Is(err, ErrFoldCollision) != tc.want || errors.Is(errLarge, ErrFoldCollision) != tc.want {
			t.Errorf("%+q, %+q: collide = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if s := "ALREADY FOLDED_0"; FoldName(s) != s {
		t.Errorf("FoldName(%q) = %q", s, FoldName(s))
	}
}

// TestFoldCollision: names equal under folding are refused in any object
// at any depth, in arrays too, with ErrFoldCollision (and ErrMalformed),
// the offset of the closing brace and no name quoted; names of different
// objects never collide.
func TestFoldCollision(t *testing.T) {
	for _, tc := range []struct {
		in  string
		off int // of the colliding object's '}', or -1: accepted
	}{
		{`{"a":1,"A":2}`, 12},
		{`{"x":{"link":1,"lin\u212a":2}}`, 28},
		{`{"x":{"y":{"LINK":1,"link":2}}}`, 28},
		{`{"x":[0,{"s":1,"\u017f":2}]}`, 25},
		{`[{"s":1},{"S":2}]`, -1},
		{`{"k":{"K":1}}`, -1},
		{`{"k":1,"K":{"k":1}}`, 18},
		{`{"\u00df":1,"ss":2,"\u0131":3,"i":4,"\u0130":5}`, -1},
		{`{"secret":1,"SECRET":2}`, 22},
		{`{"a":1,"a":2}`, 12}, // identical names are equal under folding too
		// More members than pairwise: names sorted folded.
		{`{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"lin\u212a":0,"link":0}`, 71},
		{`{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"\u00df":0,"ss":0,"i":0,"\u0131":0}`, -1},
	} {
		_, err := Canonical([]byte(tc.in))
		if tc.off < 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.in, err)
			}
			continue
		}
		var e *Error
		if !errors.Is(err, ErrFoldCollision) || !errors.Is(err, ErrMalformed) || !errors.As(err, &e) || e.Offset != tc.off {
			t.Errorf("%s: err = %v, want ErrFoldCollision at byte %d", tc.in, err, tc.off)
			continue
		}
		if strings.Contains(strings.ToLower(err.Error()), "secret") || !strings.HasPrefix(err.Error(), "jcs: byte "+strconv.Itoa(tc.off)+": ") {
			t.Errorf("error %q quotes the input or lacks the offset", err)
		}
	}
}

// TestFoldBeforeNoted: names equal under folding are reported as such
// even after a number that would change its value or a lone surrogate
// (problems reading goes on past), and those are reported alone.
func TestFoldBeforeNoted(t *testing.T) {
	for _, tc := range []struct {
		in   string
		off  int
		fold bool
	}{
		{`{"n":1e400,"x":{"k":1,"K":2}}`, 27, true},
		{`[12345678901234567890,{"s":1,"\u017f":2}]`, 39, true},
		{`{"s":"\ud800","x":[{"k":1,"k":2}]}`, 31, true},
		{`{"\ud800":1,"\ufffd":2}`, 22, true}, // encoding/json reads both as U+FFFD
		{`{"n":1e400}`, 5, false},
		{`{"n":1e400,"m":0.10000000000000001}`, 5, false},
		{`["\ud800\u0041",1e-400]`, 8, false},
		{`["\udc00"]`, 8, false},
		{`{"s":"\ud800"} x`, 15, false}, // the syntax error stops reading
		{`{"a":1,"a":2}`, 12, true},
	} {
		_, err := Canonical([]byte(tc.in))
		var e *Error
		if !errors.As(err, &e) || e.Offset != tc.off || errors.Is(err, ErrFoldCollision) != tc.fold || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want byte %d, ErrFoldCollision %v", tc.in, err, tc.off, tc.fold)
		}
	}
}
