package dpophttp

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// parseChallenges reads RFC 9110 §11.6.1 challenges: several per field,
// quoted values with escapes and commas, token68, and stops at a fault.
func TestParseChallenges(t *testing.T) {
	for _, c := range []struct {
		fields []string
		want   []challenge
	}{
		{[]string{`DPoP algs="ES256 EdDSA", error="use_dpop_nonce", error_description="a \"b\", c"`},
			[]challenge{{"DPoP", map[string]string{"algs": "ES256 EdDSA", "error": "use_dpop_nonce", "error_description": `a "b", c`}}}},
		{[]string{`Bearer realm="api", DPoP algs="ES256"`, `Basic realm=x`},
			[]challenge{{"Bearer", map[string]string{"realm": "api"}}, {"DPoP", map[string]string{"algs": "ES256"}}, {"Basic", map[string]string{"realm": "x"}}}},
		{[]string{`Negotiate abc+/==, DPoP Error=invalid_token`},
			[]challenge{{"Negotiate", map[string]string{}}, {"DPoP", map[string]string{"error": "invalid_token"}}}},
		{[]string{`DPoP error="unterminated`}, []challenge{{"DPoP", map[string]string{}}}},
		{[]string{`=x, DPoP`}, nil},
		{[]string{strings.Repeat("a", maxChallengeBytes+1)}, nil},
	} {
		h := http.Header{"Www-Authenticate": c.fields}
		if got := parseChallenges(h); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, want %+v", c.fields, got, c.want)
		}
	}
	if _, ok := dpopChallenge(http.Header{"Www-Authenticate": {`Bearer realm="x"`}}); ok {
		t.Error("a Bearer challenge read as DPoP")
	}
}

// A DPoP-Nonce outside RFC 9449 §8.1's NQCHAR, or too long, is not kept:
// it would go into a proof's claims otherwise.
func TestValidNonce(t *testing.T) {
	for s, ok := range map[string]bool{
		"abc-1.2_~": true, "!#[]": true, strings.Repeat("n", MaxNonceBytes): true,
		"": false, "a b": false, `a"b`: false, `a\b`: false, "a\x7f": false, "é": false,
		strings.Repeat("n", MaxNonceBytes+1): false,
	} {
		if validNonce(s) != ok {
			t.Errorf("%q: %v", s, !ok)
		}
	}
}

// The Transport remembers at most MaxClientOrigins origins, however many
// answer with a nonce.
func TestOriginsBounded(t *testing.T) {
	tr := &Transport{origins: map[string]originState{}}
	c := &clientCreds{}
	for i := range MaxClientOrigins + 10 {
		resp := &http.Response{StatusCode: 200, Header: http.Header{"Dpop-Nonce": {"n"}}}
		tr.learn("https://o"+strconv.Itoa(i)+".example", resp, c, originState{})
	}
	if len(tr.origins) != MaxClientOrigins {
		t.Fatalf("%d origins remembered", len(tr.origins))
	}
}

// FuzzParseChallenges: any WWW-Authenticate text, from any server, parses
// without a panic into challenges with a token scheme and lowercase
// parameter names.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{`DPoP algs="ES256 EdDSA", error="use_dpop_nonce"`, `Bearer realm="a\"b", DPoP`,
		`Negotiate abc==`, `DPoP error="x`, `,,=, a=b`, `DPoP a="\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range parseChallenges(http.Header{"Www-Authenticate": {s}}) {
			if c.Scheme == "" || strings.Trim(c.Scheme, tokenChars) != "" {
				t.Fatalf("scheme %q", c.Scheme)
			}
			for k := range c.Params {
				if k != strings.ToLower(k) || k == "" {
					t.Fatalf("param %q", k)
				}
			}
		}
	})
}
