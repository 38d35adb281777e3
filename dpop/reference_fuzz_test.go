package dpop

import (
	"encoding/base64"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// jsonSeeds are texts at the edges of spec/FORMAT.md §4.5 steps 2 and 7,
// the seed corpus of the differential fuzz targets.
func jsonSeeds() []string {
	const base = `"jti":"j","htm":"GET","htu":"https://h/","iat":1`
	arr := func(n int, in string) string { return strings.Repeat("[", n) + in + strings.Repeat("]", n) }
	return []string{
		`{` + base + `,"nonce":"n","ath":"a","x":[{"y":null}]}`,
		` {` + base + "}\n",
		`{"\u006ati":"\ud83d\ude00","htm":"","htu":"","iat":0}`,
		`{` + base + `,"jti":"k"}`,
		`{` + base + `,"j\u0074i":"k"}`,
		`{` + base + `,"x":{"a":1,"a":2}}`,
		`{` + base + `,"x":[0,{"b":{"c":[{"d":1,"\u0064":1}]}}]}`,
		`{` + base + `,"x":{"a":1,"A":2},"y":[{"a":1},{"a":1}]}`,
		`{` + base + `,"x":` + arr(maxJSONDepth, "") + `}`,
		`{` + base + `,"x":` + arr(maxJSONDepth, "1") + `}`,
		`{` + base + `,"x":` + arr(maxJSONDepth-1, "{}") + `}`,
		`{` + base + `,"x":` + arr(maxJSONDepth-1, `{"a":1}`) + `}`,
		`{` + base + `,"x":` + arr(maxJSONDepth+1, "") + `}`,
		`{` + base + `,"x":"` + strings.Repeat("[", 40) + `"}`,
		`{` + base + `,"x":"\ud800"}`,
		`{` + base + `,"x":"\udc00\ud800"}`,
		`{` + base + `,"x":"\ud800\u0041"}`,
		`{` + base + `,"x":"\ud800\ud800"}`,
		`{` + base + `,"x":"\udc00\udc00"}`,
		`{` + base + `,"\ud800":1}`,
		`{` + base + `,"x":"\\ud800"}`,
		"{" + base + `,"x":"` + "\xff" + `"}`,
		"{" + base + `,"x":"` + "\xed\xa0\x80" + `"}`,
		"{" + base + `,"x":"` + "\xef\xbf\xbd" + `"}`,
		`{` + base + `,"x":1e400,"y":-0.5E-7,"z":01}`,
		`{` + base + `}{}`,
		`{` + base + `,}`,
		`{"jti":"j","htm":"G","htu":"u","iat":01}`,
		`{"jti":"j","htm":"G","htu":"u","iat":253402300800}`,
		`{"jti":"j","htm":"G","htu":"u","iat":253402300799,"nonce":null}`,
		`{"jti":"","htm":"G","htu":"u","iat":1}`,
		`{"jti":"` + strings.Repeat("\\u00e9", MaxJTIBytes/2) + `","htm":"G","htu":"u","iat":1}`,
		`{"alg":"EdDSA","typ":"dpop+jwt","jwk":{"kty":"OKP","crv":"Ed25519","x":"AA","kty":"EC"}}`,
		`{"alg":"EdDSA","typ":"dpop+jwt","jwk":{"kty":"OKP","ext":{"a":1,"a":2}}}`,
		`null`, `[]`, ``,
	}
}

// FuzzDecodeClaims holds decodeClaims, the fast path, to the reference
// decoder (go-jose's JSON plus refLexical): both refuse the same payloads,
// and decode every accepted one to the same claims.
func FuzzDecodeClaims(f *testing.F) {
	for _, s := range jsonSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreeClaims(t, data) })
}

// FuzzHeaderText holds checkHeaderText to the reference decoder.
func FuzzHeaderText(f *testing.F) {
	for _, s := range jsonSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreeHeader(t, data) })
}

func TestReferenceSeeds(t *testing.T) {
	for _, s := range jsonSeeds() {
		agreeClaims(t, []byte(s))
		agreeHeader(t, []byte(s))
	}
}

// TestClaimsReferenceProperty generates JSON texts near the rules (claim
// names and their escaped spellings, duplicates, surrogates, invalid UTF-8,
// nesting around the bound, numbers around iat's) that random bytes rarely
// reach, and holds both fast paths to the reference on them.
func TestClaimsReferenceProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := []byte(topGen().Draw(t, "json"))
		if rapid.IntRange(0, 9).Draw(t, "mutate") == 0 && len(data) > 0 {
			i := rapid.IntRange(0, len(data)-1).Draw(t, "at")
			data = append(data[:i:i], data[i+1:]...)
		}
		agreeClaims(t, data)
		agreeHeader(t, data)
	})
}

// fataler is what testing.TB and *rapid.T have in common here.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func agreeClaims(t fataler, data []byte) {
	t.Helper()
	c, iat, e := decodeClaims(data)
	rc, riat, re := refDecodeClaims(data)
	if (e == nil) != (re == nil) {
		t.Fatalf("%q: decodeClaims %v, reference %v", data, e, re)
	}
	if e != nil {
		if e.Check != CheckClaims {
			t.Fatalf("%q: %v", data, e)
		}
		return
	}
	if *c != *rc || iat != riat {
		t.Fatalf("%q: decodeClaims %+v, reference %+v", data, *c, *rc)
	}
}

func agreeHeader(t fataler, data []byte) {
	t.Helper()
	enc := base64.RawURLEncoding.EncodeToString(data)
	e, re := checkHeaderText(enc), refHeaderText(enc)
	if (e == nil) != (re == nil) || e != nil && e.Check != CheckSyntax {
		t.Fatalf("%q: checkHeaderText %v, reference %v", data, e, re)
	}
}

var (
	memberNames = []string{"jti", "htm", "htu", "iat", "nonce", "ath", `\u006ati`, `j\u0074i`, "JTI", "x", "y", `\ud800`, ""}
	stringTexts = []string{"", "j", "GET", "https://h/", `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`, `\\ud800`,
		`\n\"\\\/`, `\u0000`, "\xff", "\xed\xa0\x80", "\xef\xbf\xbd", "é", `\u00e9`, `\x`, `\u12`, "\x01"}
	numberTexts = []string{"0", "1", "01", "-1", "1.0", "1e3", "-0.5E+2", "1.", ".5", "+1", "1700000000",
		"253402300799", "253402300800", "1000000000000"}
	spaces = []string{"", "", " ", "\n\t", "\v"}
)

func stringGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		return `"` + rapid.SampledFrom(stringTexts).Draw(t, "s") + `"`
	})
}

// valueGen draws a JSON value (or a near miss) at nesting depth d.
func valueGen(d int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		kinds := 6
		if d > maxJSONDepth+2 {
			kinds = 3 // scalars only
		}
		switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
		case 0:
			return stringGen().Draw(t, "str")
		case 1:
			return rapid.SampledFrom(numberTexts).Draw(t, "num")
		case 2:
			return rapid.SampledFrom([]string{"true", "false", "null", "tru"}).Draw(t, "lit")
		case 3:
			return objectGen(d).Draw(t, "obj")
		case 4:
			// a deep chain, to reach the bound
			n := rapid.IntRange(0, maxJSONDepth+2-d).Draw(t, "deep")
			inner := rapid.SampledFrom([]string{"", "1", "{}", "[]", `{"a":1}`}).Draw(t, "inner")
			return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
		default:
			n := rapid.IntRange(0, 3).Draw(t, "len")
			var elems []string
			for range n {
				elems = append(elems, valueGen(d+1).Draw(t, "elem"))
			}
			return "[" + strings.Join(elems, ",") + "]"
		}
	})
}

// topGen draws a top-level object, most of them with the required claims
// well typed first, so that the rest decides.
func topGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 3).Draw(t, "claims") == 0 {
			return objectGen(0).Draw(t, "object")
		}
		prefix := `"jti":` + rapid.SampledFrom([]string{`"j"`, `"\u00e9"`, `"\ud83d\ude00"`}).Draw(t, "jti") +
			`,"htm":"GET","htu":"https://h/","iat":` + rapid.SampledFrom([]string{"0", "1700000000", "253402300799"}).Draw(t, "iat")
		return members(t, 0, "{"+prefix, true) + "}"
	})
}

// objectGen draws an object at depth d; its members' values are at d+1.
func objectGen(d int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		return rapid.SampledFrom(spaces).Draw(t, "ws") + members(t, d, "{", false) + "}" + rapid.SampledFrom(spaces).Draw(t, "ws")
	})
}

// members appends up to 8 members of an object at depth d to start, after
// a comma when more is true.
func members(t *rapid.T, d int, start string, more bool) string {
	n := rapid.IntRange(0, 8).Draw(t, "members")
	var b strings.Builder
	b.WriteString(start)
	for i := range n {
		if i > 0 || more {
			b.WriteString(",")
		}
		name := rapid.SampledFrom(memberNames).Draw(t, "name")
		b.WriteString(rapid.SampledFrom(spaces).Draw(t, "ws") + `"` + name + `":`)
		switch name {
		case "iat":
			b.WriteString(rapid.SampledFrom(numberTexts).Draw(t, "iat"))
		case "jti", "htm", "htu", "nonce", "ath", `\u006ati`, `j\u0074i`:
			if rapid.IntRange(0, 4).Draw(t, "typed") > 0 {
				b.WriteString(stringGen().Draw(t, "claim"))
				continue
			}
			fallthrough
		default:
			b.WriteString(valueGen(d+1).Draw(t, "value"))
		}
	}
	return b.String()
}
