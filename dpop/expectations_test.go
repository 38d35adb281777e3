package dpop_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
)

// Unusable expectations are caller errors, not proof refusals.
func TestCheckExpectationsErrors(t *testing.T) {
	es := newKey(t, "ES256", 1)
	valid := mustMake(t, es, "POST", testURI, dpop.MakeOptions{})
	algs := func(a ...jose.SignatureAlgorithm) []jose.SignatureAlgorithm { return a }
	for name, exp := range map[string]dpop.Expectations{
		"none listed":   {Method: "POST", URI: testURI, Algorithms: algs(jose.ES256, "none")},
		"HS256 listed":  {Method: "POST", URI: testURI, Algorithms: algs(jose.HS256)},
		"HS512 listed":  {Method: "POST", URI: testURI, Algorithms: algs(jose.ES256, jose.HS512)},
		"RS256 listed":  {Method: "POST", URI: testURI, Algorithms: algs(jose.RS256)},
		"empty list":    {Method: "POST", URI: testURI, Algorithms: []jose.SignatureAlgorithm{}},
		"no method":     {URI: testURI},
		"no uri":        {Method: "POST"},
		"relative uri":  {Method: "POST", URI: "/token"},
		"negative age":  {Method: "POST", URI: testURI, MaxAge: -time.Second},
		"negative skew": {Method: "POST", URI: testURI, FutureSkew: -time.Second},
		"age too big":   {Method: "POST", URI: testURI, MaxAge: dpop.MaxAgeLimit + time.Nanosecond},
		"skew too big":  {Method: "POST", URI: testURI, FutureSkew: dpop.FutureSkewLimit + time.Nanosecond},
		"a day":         {Method: "POST", URI: testURI, MaxAge: 24 * time.Hour},
	} {
		_, err := dpop.Verify(valid, exp, testNow)
		if !errors.Is(err, dpop.ErrExpectations) || errors.Is(err, dpop.ErrInvalid) {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.HasPrefix(err.Error(), "dpop: ") {
			t.Fatalf("%s: %q", name, err)
		}
	}
}

// Proofs with a symmetric or RSA key never pass, whatever the caller's
// allow-list says (the list itself is refused).
func TestCheckNeverHMAC(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key},
		(&jose.SignerOptions{ExtraHeaders: map[jose.HeaderKey]any{"jwk": map[string]any{"kty": "oct", "k": b64(key)}}}).WithType("dpop+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(mustJSON(t, claimsAt(testNow)))
	if err != nil {
		t.Fatal(err)
	}
	proof, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	_, err = dpop.Verify(proof, postToken, testNow)
	wantRefused(t, err, dpop.CheckAlg)
}
