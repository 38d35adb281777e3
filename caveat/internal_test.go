package caveat

import (
	"math"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/internal/echo"
)

// containsJoined must agree with building a+b and searching for it.
func TestContainsJoined(t *testing.T) {
	alpha := rapid.StringOfN(rapid.RuneFrom([]rune("ab/*.")), 0, 4, -1)
	rapid.Check(t, func(t *rapid.T) {
		list := rapid.SliceOfN(alpha, 0, 6).Draw(t, "list")
		slices.Sort(list)
		list = slices.Compact(list)
		a, b := alpha.Draw(t, "a"), alpha.Draw(t, "b")
		for _, e := range list {
			if got, want := compareJoined(e, a, b), strings.Compare(e, a+b); got != want {
				t.Fatalf("compareJoined(%q, %q, %q) = %d, want %d", e, a, b, got, want)
			}
		}
		if got, want := containsJoined(list, a, b), slices.Contains(list, a+b); got != want {
			t.Fatalf("containsJoined(%q, %q, %q) = %v, want %v", list, a, b, got, want)
		}
	})
}

func TestAddSat(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{1, 2, 3}, {math.MaxInt64, 1, math.MaxInt64}, {math.MaxInt64 - 1, 1, math.MaxInt64},
		{-5, 3, -2}, {math.MinInt64, math.MaxInt64, -1},
	} {
		if got := addSat(tc.a, tc.b); got != tc.want {
			t.Errorf("addSat(%d, %d) = %d", tc.a, tc.b, got)
		}
	}
	if got := depthLimit(5, math.MaxUint64-2); got != math.MaxUint64 {
		t.Errorf("depthLimit saturates at %d", got)
	}
}

func TestShow(t *testing.T) {
	for in, want := range map[string]string{
		"src/x":       "src/x",
		"":            `""`,
		"a b":         `"a b"`,
		"x\x1b[31m":   `"x\x1b[31m"`,
		"\u202eexe":   `"\u202eexe"`,
		"é":           `"é"`,
		`q"uote`:      `"q\"uote"`,
		"\xff":        `"\xff"`,
		"k\u212a":     "\"k\u212a\"", // printable: quoted, kept
		"tab\there":   `"tab\there"`,
		"nul\x00byte": `"nul\x00byte"`,
		// Key material is never shown, not even in part.
		`{"kty":"OKP","crv":"Ed25519","d":"c2VjcmV0"}`: echo.Hidden,
		`"d":"c2VjcmV0"}`:                         echo.Hidden,
		"PRIVATE+KEY+root+56e4782d+AfWHEbbx00iUq": echo.Hidden,
	} {
		if got := show(in); got != want {
			t.Errorf("show(%q) = %s, want %s", in, got, want)
		}
	}
	long := strings.Repeat("é", 100)
	if got := show(long); len(got) > maxShowBytes+8 || !strings.HasSuffix(got, `"...`) {
		t.Errorf("show(long) = %s", got)
	}
}
