package dpop

import (
	"encoding/base64"
	"testing"
)

func TestEmbedsPublicJWK(t *testing.T) {
	enc := func(h string) string { return base64.RawURLEncoding.EncodeToString([]byte(h)) + ".e30.AA" }
	for h, want := range map[string]bool{
		`{"alg":"EdDSA","jwk":{"kty":"OKP","crv":"Ed25519","x":"AA"},"typ":"dpop+jwt"}`:          true,
		`{"alg":"EdDSA","jwk":{"kty":"OKP","crv":"Ed25519","x":"AA","d":"AA"},"typ":"dpop+jwt"}`: false,
		`{"alg":"HS256","jwk":{"kty":"oct","k":"AA"}}`:                                           false,
		`{"alg":"EdDSA"}`: false,
		`{"jwk":"x"}`:     false,
		`not json`:        false,
	} {
		if got := embedsPublicJWK(enc(h)); got != want {
			t.Errorf("embedsPublicJWK(%s) = %v", h, got)
		}
	}
	if embedsPublicJWK("!!!.e30.AA") {
		t.Error("bad base64 accepted")
	}
}

func TestDiagnoseBadBase64(t *testing.T) {
	if e := diagnose("!!!.e30.AA", supportedAlgorithms[:]); e.Check != CheckSyntax {
		t.Fatal(e)
	}
}
