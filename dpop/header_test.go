package dpop

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
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
	if e := referenceDiagnose("!!!.e30.AA", supportedAlgorithms[:]); e.Check != CheckSyntax {
		t.Fatal(e)
	}
}

// TestGoJoseLacks records what go-jose's parser accepts in a protected
// header and checkHeaderText refuses (spec/FORMAT.md §4.5 step 2): the
// reason referenceVerifyJWS runs checkHeaderText before go-jose.
func TestGoJoseLacks(t *testing.T) {
	const jwk = `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"`
	const h = `{"alg":"EdDSA","typ":"dpop+jwt",`
	for name, hdr := range map[string]string{
		"duplicate inside an unknown jwk member": h + `"jwk":` + jwk + `,"ext":{"a":1,"a":2}}}`,
		"invalid utf-8":                          h + `"kid":"` + "\xff" + `","jwk":` + jwk + `}}`,
		"lone surrogate escape":                  h + `"kid":"\ud800","jwk":` + jwk + `}}`,
		"nested 40 deep":                         h + `"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `,"jwk":` + jwk + `}}`,
	} {
		enc := base64.RawURLEncoding.EncodeToString([]byte(hdr))
		if _, err := jose.ParseSignedCompact(enc+".e30.AAAA", supportedAlgorithms[:]); err != nil {
			t.Errorf("%s: go-jose refuses it now (%v); checkHeaderText may shrink", name, err)
		}
		if e := checkHeaderText(enc); e == nil || e.Check != CheckSyntax {
			t.Errorf("%s: checkHeaderText: %v", name, e)
		}
	}
}
