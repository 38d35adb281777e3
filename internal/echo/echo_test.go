package echo

import "testing"

func TestQuote(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"POST", 64, `"POST"`},
		{"a\nb\u202e", 64, `"a\nb\u202e"`},
		{"abcdef", 4, `"abcd"...`},
		{"ééé", 3, `"é"...`}, // never half a rune
		{"ééé", 6, `"ééé"`},
		{`{"kty":"OKP","d":"secret"}`, 64, Hidden},
		{"PRIVATE+KEY+root+1234+abcd", 64, Hidden},
		{`"d":"x"`, 64, Hidden},
		{"", 64, `""`},
	} {
		if got := Quote(c.in, c.max); got != c.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
	}
}
