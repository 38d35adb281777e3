package dpop_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
)

var postToken = dpop.Expectations{Method: "POST", URI: testURI}

// TestCheckRefusals has one case per check of RFC 9449 §4.3 (and more).
func TestCheckRefusals(t *testing.T) {
	es := newKey(t, "ES256", 1)
	ed := newKey(t, "EdDSA", 2)
	other := newKey(t, "ES256", 3)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	good := claimsAt(testNow)
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range good {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	hdr := func(k string, v any) map[string]any {
		h := header(t, es, "ES256")
		if v == nil {
			delete(h, k)
		} else {
			h[k] = v
		}
		return h
	}
	sES, sEd := signerFor(es), signerFor(ed)
	octKey := []byte("0123456789abcdef0123456789abcdef")
	hmacSign := func(in []byte) []byte { m := hmac.New(sha256.New, octKey); m.Write(in); return m.Sum(nil) }
	privJWK := privateJWKMap(t, es)
	pubPlusK := header(t, es, "ES256")["jwk"].(map[string]any)
	pubPlusK["k"] = "AAAA"
	valid := mustMake(t, es, "POST", testURI, dpop.MakeOptions{})
	parts := strings.Split(valid, ".")

	cases := []struct {
		name  string
		proof string
		exp   dpop.Expectations
		want  dpop.Check
	}{
		{"oversized", strings.Repeat("a", dpop.MaxProofBytes+1), postToken, dpop.CheckSize},
		{"oversized valid-looking", valid + "." + strings.Repeat("A", dpop.MaxProofBytes), postToken, dpop.CheckSize},
		{"empty", "", postToken, dpop.CheckSyntax},
		{"garbage", "not a jws at all", postToken, dpop.CheckSyntax},
		{"dots only", "..", postToken, dpop.CheckSyntax},
		{"two parts", parts[0] + "." + parts[1], postToken, dpop.CheckSyntax},
		{"four parts", valid + ".AAAA", postToken, dpop.CheckSyntax},
		{"whitespace", parts[0] + ".\n" + parts[1] + "." + parts[2], postToken, dpop.CheckSyntax},
		{"padding", parts[0] + "=." + parts[1] + "." + parts[2], postToken, dpop.CheckSyntax},
		{"json serialization", `{"payload":"` + parts[1] + `","protected":"` + parts[0] + `","signature":"` + parts[2] + `"}`, postToken, dpop.CheckSyntax},
		{"header not json", b64([]byte("nope")) + "." + parts[1] + "." + parts[2], postToken, dpop.CheckSyntax},
		{"header duplicate typ", craft(t, `{"typ":"jwt","typ":"dpop+jwt","alg":"ES256","jwk":`+string(mustJSON(t, publicJWKMap(t, es)))+`}`, good, sES), postToken, dpop.CheckSyntax},
		{"crit header", craft(t, hdr("crit", []string{"exp"}), good, sES), postToken, dpop.CheckSyntax},
		{"b64 header", craft(t, hdr("b64", false), good, sES), postToken, dpop.CheckSyntax},
		{"typ missing", craft(t, hdr("typ", nil), good, sES), postToken, dpop.CheckTyp},
		{"typ jwt", craft(t, hdr("typ", "JWT"), good, sES), postToken, dpop.CheckTyp},
		{"typ upper case", craft(t, hdr("typ", "DPOP+JWT"), good, sES), postToken, dpop.CheckTyp},
		{"typ not a string", craft(t, hdr("typ", 1), good, sES), postToken, dpop.CheckTyp},
		{"typ checked before alg", craft(t, map[string]any{"typ": "jwt", "alg": "none"}, good, nil), postToken, dpop.CheckTyp},
		{"alg none", craft(t, hdr("alg", "none"), good, nil), postToken, dpop.CheckAlg},
		{"alg none with signature", craft(t, hdr("alg", "none"), good, sES), postToken, dpop.CheckAlg},
		{"alg missing", craft(t, hdr("alg", nil), good, sES), postToken, dpop.CheckAlg},
		{"alg HS256 with oct jwk", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "HS256", "jwk": map[string]any{"kty": "oct", "k": b64(octKey)}}, good, hmacSign), postToken, dpop.CheckAlg},
		{"alg RS256", craft(t, hdr("alg", "RS256"), good, sES), postToken, dpop.CheckAlg},
		{"alg EdDSA not on allow-list", craft(t, header(t, ed, "EdDSA"), good, sEd), dpop.Expectations{Method: "POST", URI: testURI, Algorithms: []jose.SignatureAlgorithm{jose.ES256}}, dpop.CheckAlg},
		{"jwk missing", craft(t, hdr("jwk", nil), good, sES), postToken, dpop.CheckJWK},
		{"jwk private", craft(t, hdr("jwk", privJWK), good, sES), postToken, dpop.CheckJWK},
		{"jwk with symmetric member", craft(t, hdr("jwk", pubPlusK), good, sES), postToken, dpop.CheckJWK},
		{"jwk oct under ES256", craft(t, hdr("jwk", map[string]any{"kty": "oct", "k": b64(octKey)}), good, hmacSign), postToken, dpop.CheckJWK},
		{"jwk not an object", craft(t, hdr("jwk", "key"), good, sES), postToken, dpop.CheckJWK},
		{"jwk point not on curve", craft(t, hdr("jwk", map[string]any{"kty": "EC", "crv": "P-256", "x": b64(make([]byte, 32)), "y": b64(make([]byte, 32))}), good, sES), postToken, dpop.CheckJWK},
		{"ES256 with Ed25519 jwk", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": publicJWKMap(t, ed)}, good, sEd), postToken, dpop.CheckJWK},
		{"EdDSA with P-256 jwk", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "EdDSA", "jwk": publicJWKMap(t, es)}, good, sES), postToken, dpop.CheckJWK},
		{"ES256 with P-384 jwk", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": map[string]any{"kty": "EC", "crv": "P-384", "x": b64(p384.X.FillBytes(make([]byte, 48))), "y": b64(p384.Y.FillBytes(make([]byte, 48)))}}, good, signerFor(p384)), postToken, dpop.CheckJWK},
		{"jwk alg member differs", craft(t, hdr("jwk", withAlg(publicJWKMap(t, es), "ES384")), good, sES), postToken, dpop.CheckJWK},
		{"kid not a string, typ wrong", craft(t, map[string]any{"typ": "jwt", "alg": "ES256", "kid": 5, "jwk": publicJWKMap(t, es)}, good, sES), postToken, dpop.CheckTyp},
		{"kid not a string, crit", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "ES256", "kid": 5, "crit": []string{"x"}, "jwk": publicJWKMap(t, es)}, good, sES), postToken, dpop.CheckSyntax},
		{"kid not a string, jwk missing", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "ES256", "kid": 5}, good, sES), postToken, dpop.CheckJWK},
		{"kid not a string, key type mismatch", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "ES256", "kid": 5, "jwk": publicJWKMap(t, ed)}, good, sES), postToken, dpop.CheckJWK},
		{"kid not a string, jwk alg mismatch", craft(t, map[string]any{"typ": "dpop+jwt", "alg": "ES256", "kid": 5, "jwk": withAlg(publicJWKMap(t, es), "EdDSA")}, good, sES), postToken, dpop.CheckJWK},
		{"flipped signature byte", flipSignature(valid), postToken, dpop.CheckSignature},
		{"signed by another key", craft(t, header(t, es, "ES256"), good, signerFor(other)), postToken, dpop.CheckSignature},
		{"empty signature", parts[0] + "." + parts[1] + ".", postToken, dpop.CheckSignature},
		{"claims not json", craft(t, header(t, es, "ES256"), "[1,2]", sES), postToken, dpop.CheckClaims},
		{"claims duplicate jti", craft(t, header(t, es, "ES256"), `{"jti":"a","jti":"b","htm":"POST","htu":"`+testURI+`","iat":1700000000}`, sES), postToken, dpop.CheckClaims},
		{"claims escaped duplicate htu", craft(t, header(t, es, "ES256"), `{"jti":"a","htm":"POST","htu":"https://x/","\u0068tu":"`+testURI+`","iat":1700000000}`, sES), postToken, dpop.CheckClaims},
		{"claims trailing data", craft(t, header(t, es, "ES256"), `{"jti":"a","htm":"POST","htu":"`+testURI+`","iat":1700000000} {}`, sES), postToken, dpop.CheckClaims},
		{"jti missing", craft(t, header(t, es, "ES256"), with("jti", nil), sES), postToken, dpop.CheckClaims},
		{"jti empty", craft(t, header(t, es, "ES256"), with("jti", ""), sES), postToken, dpop.CheckClaims},
		{"jti number", craft(t, header(t, es, "ES256"), with("jti", 7), sES), postToken, dpop.CheckClaims},
		{"jti too long", craft(t, header(t, es, "ES256"), with("jti", strings.Repeat("j", dpop.MaxJTIBytes+1)), sES), postToken, dpop.CheckClaims},
		{"htm missing", craft(t, header(t, es, "ES256"), with("htm", nil), sES), postToken, dpop.CheckClaims},
		{"htm not a string", craft(t, header(t, es, "ES256"), with("htm", true), sES), postToken, dpop.CheckClaims},
		{"htu missing", craft(t, header(t, es, "ES256"), with("htu", nil), sES), postToken, dpop.CheckClaims},
		{"iat missing", craft(t, header(t, es, "ES256"), with("iat", nil), sES), postToken, dpop.CheckClaims},
		{"iat fraction", craft(t, header(t, es, "ES256"), with("iat", 1700000000.5), sES), postToken, dpop.CheckClaims},
		{"iat .0", craft(t, header(t, es, "ES256"), `{"jti":"a","htm":"POST","htu":"`+testURI+`","iat":1700000000.0}`, sES), postToken, dpop.CheckClaims},
		{"iat exponent", craft(t, header(t, es, "ES256"), `{"jti":"a","htm":"POST","htu":"`+testURI+`","iat":17e8}`, sES), postToken, dpop.CheckClaims},
		{"iat string", craft(t, header(t, es, "ES256"), with("iat", "1700000000"), sES), postToken, dpop.CheckClaims},
		{"iat negative", craft(t, header(t, es, "ES256"), with("iat", -1), sES), postToken, dpop.CheckClaims},
		{"iat null", craft(t, header(t, es, "ES256"), `{"jti":"a","htm":"POST","htu":"`+testURI+`","iat":null}`, sES), postToken, dpop.CheckClaims},
		{"iat huge", craft(t, header(t, es, "ES256"), `{"jti":"a","htm":"POST","htu":"`+testURI+`","iat":99999999999999999999}`, sES), postToken, dpop.CheckClaims},
		{"nonce not a string", craft(t, header(t, es, "ES256"), with("nonce", 5), sES), postToken, dpop.CheckClaims},
		{"ath not a string", craft(t, header(t, es, "ES256"), with("ath", []int{1}), sES), postToken, dpop.CheckClaims},
		{"htm mismatch", mustMake(t, es, "GET", testURI, dpop.MakeOptions{}), postToken, dpop.CheckHTM},
		{"htm case", mustMake(t, es, "post", testURI, dpop.MakeOptions{}), postToken, dpop.CheckHTM},
		{"htu mismatch", mustMake(t, es, "POST", "https://server.example.com/other", dpop.MakeOptions{}), postToken, dpop.CheckHTU},
		{"htu relative", craft(t, header(t, es, "ES256"), with("htu", "/token"), sES), postToken, dpop.CheckHTU},
		{"htu empty", craft(t, header(t, es, "ES256"), with("htu", ""), sES), postToken, dpop.CheckHTU},
		{"stale iat", mustMake(t, es, "POST", testURI, dpop.MakeOptions{IssuedAt: testNow.Add(-dpop.DefaultMaxAge - time.Second)}), postToken, dpop.CheckIAT},
		{"future iat", mustMake(t, es, "POST", testURI, dpop.MakeOptions{IssuedAt: testNow.Add(dpop.DefaultFutureSkew + time.Second)}), postToken, dpop.CheckIAT},
		{"nonce missing", valid, dpop.Expectations{Method: "POST", URI: testURI, Nonce: "n-1"}, dpop.CheckNonce},
		{"nonce wrong", mustMake(t, es, "POST", testURI, dpop.MakeOptions{Nonce: "n-0"}), dpop.Expectations{Method: "POST", URI: testURI, Nonce: "n-1"}, dpop.CheckNonce},
		{"ath missing", valid, dpop.Expectations{Method: "POST", URI: testURI, AccessToken: "tok"}, dpop.CheckATH},
		{"ath for another token", mustMake(t, es, "POST", testURI, dpop.MakeOptions{AccessToken: "other"}), dpop.Expectations{Method: "POST", URI: testURI, AccessToken: "tok"}, dpop.CheckATH},
		{"ath of normalised token", mustMake(t, es, "POST", testURI, dpop.MakeOptions{AccessToken: "tok "}), dpop.Expectations{Method: "POST", URI: testURI, AccessToken: "tok"}, dpop.CheckATH},
		{"jkt of another key", valid, dpop.Expectations{Method: "POST", URI: testURI, Thumbprint: thumbprintOf(t, other)}, dpop.CheckJKT},
		{"jkt prefix", valid, dpop.Expectations{Method: "POST", URI: testURI, Thumbprint: thumbprintOf(t, es)[:42]}, dpop.CheckJKT},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := dpop.Verify(c.proof, c.exp, testNow)
			if p != nil {
				t.Fatal("non-nil proof with refusal")
			}
			wantRefused(t, err, c.want)
			if c.want == dpop.CheckNonce != errors.Is(err, dpop.ErrNonce) {
				t.Fatalf("errors.Is(err, ErrNonce) wrong for %v", err)
			}
			msg := err.Error()
			if len(c.proof) > 20 && strings.Contains(msg, c.proof[:20]) {
				t.Fatalf("error echoes the proof: %q", msg)
			}
			if strings.Contains(msg, privJWK["d"].(string)) || strings.Contains(msg, privJWK["x"].(string)) {
				t.Fatalf("error echoes key material: %q", msg)
			}
		})
	}
}

// Error messages quote at most a short prefix of a long htu.
func TestCheckErrorEchoBounded(t *testing.T) {
	es := newKey(t, "ES256", 1)
	long := "https://server.example.com/" + strings.Repeat("p", 2000)
	_, err := dpop.Verify(mustMake(t, es, "POST", long, dpop.MakeOptions{}), postToken, testNow)
	wantRefused(t, err, dpop.CheckHTU)
	if len(err.Error()) > 250 || !strings.Contains(err.Error(), `..."`) && !strings.Contains(err.Error(), `"...`) {
		t.Fatalf("long htu echoed: %d bytes: %.300s", len(err.Error()), err)
	}
}

// The accepting side of the optional checks.
func TestCheckAccepts(t *testing.T) {
	es := newKey(t, "ES256", 1)
	jkt := thumbprintOf(t, es)
	full := mustMake(t, es, "POST", testURI, dpop.MakeOptions{Nonce: "n-1", AccessToken: "tok", JTI: "j"})
	for name, exp := range map[string]dpop.Expectations{
		"all":                {Method: "POST", URI: testURI, Nonce: "n-1", AccessToken: "tok", Thumbprint: jkt},
		"nonce not demanded": {Method: "POST", URI: testURI, AccessToken: "tok"},
		"ath not expected":   {Method: "POST", URI: testURI, Nonce: "n-1"},
		"ES256 only":         {Method: "POST", URI: testURI, Algorithms: []jose.SignatureAlgorithm{jose.ES256}},
	} {
		p, err := dpop.Verify(full, exp, testNow)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Thumbprint != jkt || p.JTI != "j" || p.Key == nil || !p.Key.IsPublic() {
			t.Fatalf("%s: %+v", name, p)
		}
	}
	// A proof exactly MaxProofBytes long is not refused for its size.
	pad := strings.Repeat("A", dpop.MaxProofBytes)
	_, err := dpop.Verify(pad, postToken, testNow)
	var e *dpop.Error
	if !errors.As(err, &e) || e.Check == dpop.CheckSize {
		t.Fatalf("proof of exactly MaxProofBytes: %v", err)
	}
}

// RFC 9449 §4.3 step 11: iat within [now-MaxAge, now+FutureSkew], both
// edges included, one second past refused.
func TestCheckIATWindow(t *testing.T) {
	es := newKey(t, "ES256", 1)
	for _, w := range []struct{ maxAge, skew time.Duration }{
		{0, 0}, // defaults
		{time.Minute, 5 * time.Second},
		{time.Second, time.Second},
		{dpop.MaxAgeLimit, dpop.FutureSkewLimit}, // the largest allowed
	} {
		exp := dpop.Expectations{Method: "POST", URI: testURI, MaxAge: w.maxAge, FutureSkew: w.skew}
		maxAge, skew := w.maxAge, w.skew
		if maxAge == 0 {
			maxAge = dpop.DefaultMaxAge
		}
		if skew == 0 {
			skew = dpop.DefaultFutureSkew
		}
		for _, c := range []struct {
			iat time.Time
			ok  bool
		}{
			{testNow, true},
			{testNow.Add(-maxAge), true},
			{testNow.Add(-maxAge - time.Second), false},
			{testNow.Add(skew), true},
			{testNow.Add(skew + time.Second), false},
		} {
			proof := mustMake(t, es, "POST", testURI, dpop.MakeOptions{IssuedAt: c.iat})
			p, err := dpop.Verify(proof, exp, testNow)
			if c.ok {
				if err != nil {
					t.Fatalf("window %v/%v iat %v: %v", maxAge, skew, c.iat.Sub(testNow), err)
				}
				if want := c.iat.Add(dpop.RememberFor); !p.RememberUntil.Equal(want) {
					t.Fatalf("RememberUntil %v, want %v", p.RememberUntil, want)
				}
				continue
			}
			wantRefused(t, err, dpop.CheckIAT)
		}
	}
}
