package vecgen

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/jcs"
)

// ArgsCase is one case of the args digest (CAVEATS.md "The args digest"):
// the input bytes and either their canonical JSON and digest, or
// "malformed".
type ArgsCase struct {
	Name      string  `json:"name"`
	InputHex  string  `json:"input_hex"`
	Canonical *string `json:"canonical,omitempty"`
	Digest    string  `json:"digest,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// argsInputs are the cases spec/README.md lists: RFC 8785's examples, the
// number rules, the lexical rules, names equal under case folding and
// not, depth at and over the limit, {} and null.
func argsInputs() []struct{ name, in string } {
	nest := func(n int, inner string) string {
		return `{"x":` + strings.Repeat("[", n) + inner + strings.Repeat("]", n) + `}`
	}
	return []struct{ name, in string }{
		{"empty-object", `{}`},
		{"null", `null`},
		{"rfc8785-3.2.3-sorting", "{\n  \"\\u20ac\": \"Euro Sign\",\n  \"\\r\": \"Carriage Return\",\n  \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\",\n" +
			"  \"1\": \"One\",\n  \"\\ud83d\\ude00\": \"Emoji: Grinning Face\",\n  \"\\u0080\": \"Control\",\n  \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"\n}"},
		{"rfc8785-3.2.2-kept-numbers", "{\n  \"numbers\": [333333333.3333333, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n" +
			"  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n  \"literals\": [null, true, false]\n}"},
		{"rfc8785-3.2.2-as-written", `[333333333.33333329]`},
		{"worked-example", ` { "b": [1.0, "\u00e9"], "a": 1E2 } `},
		{"number-1.0", `1.0`},
		{"number-1E2", `1E2`},
		{"number-minus-zero", `-0`},
		{"number-smallest-subnormal", `5e-324`},
		{"number-1e21", `1e21`},
		{"number-beyond-double", `1e400`},
		{"number-rounds-to-zero", `1e-400`},
		{"number-loses-digits", `12345678901234567890`},
		{"number-loses-a-digit", `0.10000000000000001`},
		{"number-2-pow-53-plus-1", `9007199254740993`},
		{"duplicate-name-after-unescaping", `{"a":1,"\u0061":2}`},
		{"fold-top-level", `{"a":1,"A":2}`},
		{"fold-depth-1", `{"x":{"link":1,"lin\u212a":2}}`},
		{"fold-depth-2", `{"x":{"y":{"LINK":1,"link":2}}}`},
		{"fold-depth-3", `{"a":{"b":{"c":{"Key":1,"kEY":2}}}}`},
		{"fold-in-array", `{"items":[{"id":1},{"name":"a","NAME":"b"}]}`},
		{"fold-in-nested-arrays", `[[0,{"s":1,"\u017f":2}]]`},
		{"fold-kelvin-sign", `{"\u212a":1,"k":2}`},
		{"fold-long-s-utf8", "{\"\u017f\":1,\"s\":2}"},
		{"fold-astral", `{"\ud801\udc00":1,"\ud801\udc28":2}`},
		{"fold-theta-symbol", `{"\u03b8":1,"\u03d1":2}`},
		{"fold-capital-sharp-s", `{"\u00df":1,"\u1e9e":2}`},
		{"no-fold-kra", `{"link":1,"lin\u0138":2}`},
		{"no-fold-full-folding-only", `{"ss":1,"\u00df":2}`},
		{"no-fold-turkic-only", `{"i":1,"\u0130":2,"\u0131":3}`},
		{"no-fold-other-objects", `[{"k":1},{"K":2,"x":{"k":3}}]`},
		{"no-fold-unicode-16", `{"\u1c89":1,"\u1c8a":2}`},
		{"lone-high-surrogate", `"\ud800"`},
		{"lone-low-surrogate", `"\udc00x"`},
		{"invalid-utf8", "\"\xff\""},
		{"controls-and-solidus", `"\u0000\u001f\/\u007f\u2028"`},
		{"byte-order-mark", "\ufeff{}"},
		{"depth-32", nest(32, "")},
		{"depth-33-value", nest(32, "1")},
		{"depth-33-array", nest(33, "")},
		{"trailing-data", `{} {}`},
		{"surrounding-whitespace", " \t\r\n{\"a\":[]}\n"},
	}
}

// argsCases computes each case with internal/jcs and checks it against
// caveat.ArgsDigest, the function verifiers call.
func (g *gen) argsCases() {
	for _, c := range argsInputs() {
		ac := ArgsCase{Name: c.name, InputHex: hex.EncodeToString([]byte(c.in))}
		canon, err := jcs.Canonical([]byte(c.in))
		digest, derr := caveat.ArgsDigest([]byte(c.in))
		if strings.HasPrefix(c.name, "fold-") && !errors.Is(err, jcs.ErrFoldCollision) || strings.HasPrefix(c.name, "no-fold-") && err != nil {
			g.fail(errorf("args " + c.name + ": a fold- case must be refused for names equal under case folding, a no-fold- case accepted"))
		}
		switch {
		case err != nil && errors.Is(err, jcs.ErrMalformed) && derr != nil:
			ac.Error = "malformed"
		case err == nil && derr == nil:
			s := string(canon)
			sum := sha256.Sum256(canon)
			if hex.EncodeToString(sum[:]) != hex.EncodeToString(digest) {
				g.fail(errorf("args " + c.name + ": ArgsDigest is not SHA-256 of the canonical form"))
			}
			ac.Canonical, ac.Digest = &s, hex.EncodeToString(digest)
		default:
			g.fail(errorf("args " + c.name + ": jcs and ArgsDigest disagree"))
		}
		g.file.Args = append(g.file.Args, ac)
	}
}

// RunArgs checks every args case against internal/jcs and
// caveat.ArgsDigest, byte for byte: what a conforming implementation's
// canonicalisation and digest must give.
func (f *File) RunArgs() error {
	for _, c := range f.Args {
		in, err := hex.DecodeString(c.InputHex)
		if err != nil {
			return errors.New("args " + c.Name + ": input_hex is not hex")
		}
		canon, cerr := jcs.Canonical(in)
		digest, derr := caveat.ArgsDigest(in)
		if c.Error == "malformed" {
			if cerr == nil || derr == nil {
				return errors.New("args " + c.Name + ": accepted, want malformed")
			}
			continue
		}
		switch {
		case cerr != nil || derr != nil:
			return errors.New("args " + c.Name + ": refused, want a digest")
		case c.Canonical == nil || string(canon) != *c.Canonical:
			return errors.New("args " + c.Name + ": canonical form differs")
		case hex.EncodeToString(digest) != c.Digest:
			return errors.New("args " + c.Name + ": digest differs")
		}
	}
	return nil
}
