package dpophttp

import (
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// The examples of RFC 9449 against the middleware.
func TestRFC9449Examples(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.PublicURL = "https://resource.example.org" })
	proof, err := os.ReadFile("../dpop/testdata/rfc9449/proof_resource_request_with_ath.jwt")
	if err != nil {
		t.Fatal(err)
	}
	// §7.1: the protected-resource request, whose access token is no
	// ticket: refused as an invalid token, with the DPoP challenge.
	r := httptest.NewRequest("GET", "/protectedresource", nil)
	r.Host = "resource.example.org"
	r.Header.Set("Authorization", "DPoP Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
	r.Header.Set("DPoP", strings.TrimSpace(string(proof)))
	checkRefusal(t, f.do(r), 401, CodeInvalidToken, "not a ticket", false)

	// §9: a proof without the server's nonce (the RFC's example nonce is
	// not this server's) gets use_dpop_nonce and a DPoP-Nonce, as the
	// RFC's example response has them.
	tk := f.mint(true, "tools=GET")
	for _, nonce := range []string{"", "eyJ7S_zG.eyJH0-Z.HX4w-7v"} {
		r = httptest.NewRequest("GET", "/protectedresource", nil)
		r.Header.Set("Authorization", "DPoP "+tk)
		r.Header.Set("DPoP", f.proofBy(f.holder, "GET", "https://resource.example.org/protectedresource", tk, nonce))
		w := f.do(r)
		checkRefusal(t, w, 401, CodeUseNonce, "nonce", false)
		if ch := w.Header().Get("WWW-Authenticate"); !strings.HasPrefix(ch, `DPoP algs="ES256 EdDSA Ed25519", error="use_dpop_nonce", error_description="`) {
			t.Fatalf("challenge %q", ch)
		}
	}

	// §4.3 step 9: htu is compared after normalisation, without its
	// query and fragment.
	for _, htu := range []string{
		"https://resource.example.org/protectedresource",
		"HTTPS://Resource.Example.ORG:443/protectedresource",
		"https://resource.example.org/protectedresource?a=1#frag",
		"https://resource.example.org/%70rotectedresource",
	} {
		r = httptest.NewRequest("GET", "/protectedresource?a=2", nil)
		r.Header.Set("Authorization", "DPoP "+tk)
		r.Header.Set("DPoP", f.proofBy(f.holder, "GET", htu, tk, f.nonce()))
		if w := f.do(r); w.Code != 200 {
			t.Errorf("htu %s: %d %s", htu, w.Code, w.Body)
		}
	}
	for _, htu := range []string{
		"http://resource.example.org/protectedresource",
		"https://resource.example.org:8443/protectedresource",
		"https://resource.example.org/protectedresource/",
		"https://other.example.org/protectedresource",
	} {
		r = httptest.NewRequest("GET", "/protectedresource", nil)
		r.Header.Set("Authorization", "DPoP "+tk)
		r.Header.Set("DPoP", f.proofBy(f.holder, "GET", htu, tk, f.nonce()))
		checkRefusal(t, f.do(r), 401, CodeInvalidProof, "htu", false)
	}
}
