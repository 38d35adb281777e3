package dpop_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
)

func TestMakeCheckRoundTrip(t *testing.T) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		for _, wrap := range []bool{false} {
			k := newKey(t, alg, 7)
			jkt := thumbprintOf(t, k)
			proof, err := dpop.Make(holderOf(t, k), "POST", "https://server.example.com/token?x=1#frag", dpop.MakeOptions{
				Nonce: "n", AccessToken: "tok", IssuedAt: testNow, JTI: "jti-7",
			})
			if err != nil {
				t.Fatalf("%s wrap=%v: %v", alg, wrap, err)
			}
			exp := dpop.Expectations{Method: "POST", URI: testURI, Nonce: "n", AccessToken: "tok", Thumbprint: jkt}
			p, err := dpop.Verify(proof, exp, testNow)
			if err != nil {
				t.Fatalf("%s wrap=%v: %v", alg, wrap, err)
			}
			if p.URI != testURI || p.JTI != "jti-7" || p.Method != "POST" || !p.IssuedAt.Equal(testNow) || p.Thumbprint != jkt {
				t.Fatalf("%s: %+v", alg, p)
			}
			// The header holds exactly typ, alg and a public jwk.
			hdr, _, _ := strings.Cut(proof, ".")
			raw, err := base64.RawURLEncoding.DecodeString(hdr)
			if err != nil {
				t.Fatal(err)
			}
			var h map[string]json.RawMessage
			if err := json.Unmarshal(raw, &h); err != nil {
				t.Fatal(err)
			}
			if len(h) != 3 || string(h["typ"]) != `"dpop+jwt"` || string(h["alg"]) != `"`+alg+`"` {
				t.Fatalf("header %s", raw)
			}
			var jwk map[string]any
			if err := json.Unmarshal(h["jwk"], &jwk); err != nil {
				t.Fatal(err)
			}
			if _, ok := jwk["d"]; ok {
				t.Fatalf("private jwk embedded: %s", raw)
			}
		}
	}
}

func TestMakeJTI(t *testing.T) {
	k := newKey(t, "EdDSA", 1)
	// A random jti is the next 16 bytes of crypto/rand, base64url.
	rnd := make([]byte, 16)
	cryptotest.SetGlobalRandom(t, 1)
	rand.Read(rnd)
	cryptotest.SetGlobalRandom(t, 1)
	proof := mustMake(t, k, "GET", testURI, dpop.MakeOptions{})
	p, err := dpop.Verify(proof, dpop.Expectations{Method: "GET", URI: testURI}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if want := base64.RawURLEncoding.EncodeToString(rnd); p.JTI != want {
		t.Fatalf("jti %q, want %q", p.JTI, want)
	}
	// Default: crypto/rand, distinct jtis.
	a := mustMake(t, k, "GET", testURI, dpop.MakeOptions{})
	b := mustMake(t, k, "GET", testURI, dpop.MakeOptions{})
	pa, _ := dpop.Verify(a, dpop.Expectations{Method: "GET", URI: testURI}, testNow)
	pb, _ := dpop.Verify(b, dpop.Expectations{Method: "GET", URI: testURI}, testNow)
	if pa == nil || pb == nil || pa.JTI == pb.JTI || len(pa.JTI) != 22 {
		t.Fatalf("jtis %+v %+v", pa, pb)
	}
}

func TestMakeErrors(t *testing.T) {
	k := holderOf(t, newKey(t, "ES256", 1))
	ok := dpop.MakeOptions{IssuedAt: testNow}
	cases := map[string]func() (string, error){
		"zero iat":     func() (string, error) { return dpop.Make(k, "GET", testURI, dpop.MakeOptions{}) },
		"empty method": func() (string, error) { return dpop.Make(k, "", testURI, ok) },
		"relative uri": func() (string, error) { return dpop.Make(k, "GET", "/token", ok) },
		"nil key":      func() (string, error) { return dpop.Make(nil, "GET", testURI, ok) },
		"long jti": func() (string, error) {
			return dpop.Make(k, "GET", testURI, dpop.MakeOptions{IssuedAt: testNow, JTI: strings.Repeat("j", 300)})
		},
		"iat before 1970": func() (string, error) {
			return dpop.Make(k, "GET", testURI, dpop.MakeOptions{IssuedAt: time.Unix(-1, 0)})
		},
	}
	for name, f := range cases {
		if p, err := f(); err == nil || p != "" || !strings.HasPrefix(err.Error(), "dpop: ") {
			t.Errorf("%s: %q, %v", name, p, err)
		}
	}
}

var uriGen = rapid.Custom(func(t *rapid.T) string {
	u := rapid.SampledFrom([]string{"https", "http", "HTTPS", "mcp", "wss"}).Draw(t, "scheme") + "://" +
		rapid.StringMatching(`[a-zA-Z][a-zA-Z0-9-]{0,10}(\.[a-z]{2,5}){0,2}`).Draw(t, "host")
	if rapid.Bool().Draw(t, "port?") {
		u += ":" + rapid.StringMatching(`[0-9]{0,5}`).Filter(func(s string) bool {
			return len(s) < 5 || s <= "65535"
		}).Draw(t, "port")
	}
	u += rapid.StringMatching(`(/([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2}){0,8}){0,4}`).Draw(t, "path")
	u += rapid.StringMatching(`(\?[a-z=&/?]{0,10})?(#[a-z?/]{0,5})?`).Draw(t, "query")
	return u
})

// Property: any proof made by Make passes Verify with matching
// expectations, and any single changed byte makes Verify refuse it.
func TestMakeCheckProperty(t *testing.T) {
	keys := map[string]*key.Holder{"ES256": holderOf(t, newKey(t, "ES256", 11)), "EdDSA": holderOf(t, newKey(t, "EdDSA", 12))}
	jkts := map[string]string{"ES256": keys["ES256"].Thumbprint(), "EdDSA": keys["EdDSA"].Thumbprint()}
	rapid.Check(t, func(rt *rapid.T) {
		alg := rapid.SampledFrom([]string{"ES256", "EdDSA"}).Draw(rt, "alg")
		k := keys[alg]
		method := rapid.StringN(1, 16, -1).Draw(rt, "method")
		uri := uriGen.Draw(rt, "uri")
		nonce := rapid.String().Draw(rt, "nonce")
		token := rapid.String().Draw(rt, "token")
		iat := time.Unix(rapid.Int64Range(0, 4_000_000_000).Draw(rt, "iat"), 0)
		proof, err := dpop.Make(k, method, uri, dpop.MakeOptions{Nonce: nonce, AccessToken: token, IssuedAt: iat})
		if err != nil {
			rt.Fatalf("Make(%q, %q): %v", method, uri, err)
		}
		exp := dpop.Expectations{Method: method, URI: uri, Nonce: nonce, AccessToken: token, Thumbprint: jkts[alg]}
		now := iat.Add(time.Duration(rapid.Int64Range(-int64(dpop.DefaultFutureSkew), int64(dpop.DefaultMaxAge)).Draw(rt, "age")))
		p, err := dpop.Verify(proof, exp, now)
		if err != nil {
			rt.Fatalf("Check: %v", err)
		}
		if p.Method != method || p.Thumbprint != exp.Thumbprint || !p.IssuedAt.Equal(iat) {
			rt.Fatalf("proof %+v", p)
		}
		i := rapid.IntRange(0, len(proof)-1).Draw(rt, "index")
		b := rapid.Byte().Filter(func(b byte) bool { return b != proof[i] }).Draw(rt, "byte")
		flipped := proof[:i] + string([]byte{b}) + proof[i+1:]
		if _, err := dpop.Verify(flipped, exp, now); !errors.Is(err, dpop.ErrInvalid) {
			rt.Fatalf("flipped byte %d to %q: %v", i, b, err)
		}
	})
}

// A nil or zero holder key is an error, not a panic.
func TestNilKeys(t *testing.T) {
	for _, h := range []*key.Holder{nil, {}} {
		if _, err := dpop.Make(h, "GET", testURI, dpop.MakeOptions{IssuedAt: testNow}); err == nil {
			t.Errorf("Make accepted %v", h)
		}
	}
}
