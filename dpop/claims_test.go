package dpop

import (
	"strings"
	"testing"
)

func TestDecodeClaims(t *testing.T) {
	ok := map[string]claims{
		`{"jti":"j","htm":"GET","htu":"https://h/","iat":0}`:                                           {JTI: "j", HTM: "GET", HTU: "https://h/"},
		" {\"jti\" : \"j\",\n\"htm\":\"\",\"htu\":\"\",\"iat\":1700000000 , \"x\":[1,{\"a\":null}]}\t": {JTI: "j", iat: 1700000000},
		`{"\u006a\u0074\u0069":"\u00e9\ud83d\ude00\n\"\\\/","htm":"G","htu":"u","iat":5,"nonce":"","ath":"a"}`: {
			JTI: "é😀\n\"\\/", HTM: "G", HTU: "u", iat: 5, hasNonce: true, ATH: "a", hasATH: true,
		},
		`{"JTI":1,"jti":"j","htm":"G","htu":"u","iat":1,"exp":1e3,"cnf":{"jkt":"x"},"t":true,"f":false,"n":null,"neg":-0.5E+2}`: {JTI: "j", HTM: "G", HTU: "u", iat: 1},
	}
	for in, want := range ok {
		c, iat, e := decodeClaims([]byte(in))
		if e != nil {
			t.Errorf("%s: %v", in, e)
			continue
		}
		if *c != want || iat != want.iat {
			t.Errorf("%s: got %+v, want %+v", in, *c, want)
		}
	}
	base := `"jti":"j","htm":"G","htu":"u","iat":1`
	bad := []string{
		``, ` `, `null`, `[]`, `"x"`, `{`, `{}`, `{` + base, `{` + base + `}x`, `{` + base + `}{}`,
		`{` + base + `,}`, `{,` + base + `}`, `{` + base + `,"jti":"k"}`, `{` + base + `,"\u006ati":"k"}`,
		`{` + base + `,"x":1,"x":2}`, `{` + base + `,"x":01}`, `{` + base + `,"x":1.}`, `{` + base + `,"x":.5}`,
		`{` + base + `,"x":tru}`, `{` + base + `,"x":[1,]}`, `{` + base + `,"x":{"a"}}`, `{` + base + `,"x":+1}`,
		`{` + base + `,"x":"\x01"}`, `{` + base + `,"x":"\q"}`, `{` + base + `,"x":"\ud800"}`, `{` + base + `,"x":"\udc00\ud800"}`,
		`{` + base + `,"x":"\ud800\u0041"}`, `{` + base + `,"x":"\u12"}`, "{" + base + `,"x":"` + "\xff" + `"}`,
		`{` + base + `,"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
		`{'jti':"j"}`, `{"jti":"j","htm":"G","htu":"u","iat":1.0}`, `{"jti":"j","htm":"G","htu":"u","iat":-1}`,
		`{"jti":"j","htm":"G","htu":"u","iat":1e3}`, `{"jti":"j","htm":"G","htu":"u","iat":"1"}`,
		`{"jti":"j","htm":"G","htu":"u","iat":null}`, `{"jti":null,"htm":"G","htu":"u","iat":1}`,
		`{"jti":"","htm":"G","htu":"u","iat":1}`, `{"jti":"j","htm":1,"htu":"u","iat":1}`,
		`{"jti":"j","htm":"G","htu":"u","iat":1,"nonce":null}`, `{"jti":"j","htm":"G","htu":"u","iat":1,"ath":[]}`,
		`{"jti":"j","htm":"G","htu":"u","iat":1000000000000}`, `{"jti":"j","htm":"G","iat":1}`, `{"htm":"G","htu":"u","iat":1}`,
	}
	for _, in := range bad {
		if c, _, e := decodeClaims([]byte(in)); e == nil || e.Check != CheckClaims {
			t.Errorf("%q: accepted %+v", in, c)
		}
	}
	// Many unknown members: duplicates still found once the set is a map.
	var b strings.Builder
	b.WriteString("{" + base)
	for i := range 100 {
		b.WriteString(`,"k` + strings.Repeat("x", i) + `":0`)
	}
	if _, _, e := decodeClaims([]byte(b.String() + "}")); e != nil {
		t.Fatal(e)
	}
	if _, _, e := decodeClaims([]byte(b.String() + `,"kxxxxx":1}`)); e == nil {
		t.Fatal("late duplicate accepted")
	}
}
