package dpophttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// TestRefusals holds every refusal to its status, its challenge and its
// JSON body, and checks that the handler never ran.
func TestRefusals(t *testing.T) {
	f := newFixture(t, nil)
	bound := f.mint(true, "tools=GET,POST", "paths=/v1/", "hosts=api.example.com")
	unbound := f.mint(false, "tools=GET")
	other, _ := fixedkey.Signing(key.Ed25519, "root", "another root")
	stranger, _ := fixedkey.Holder(key.ES256, "another holder")
	n := f.nonce()
	cases := []struct {
		name   string
		build  func() *http.Request
		status int
		code   string // "" for no error parameter
		desc   string // part of error_description
	}{
		{"no credentials", func() *http.Request { return httptest.NewRequest("GET", "/v1/a", nil) }, 401, "", ""},
		{"two authorization headers", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Add("Authorization", "DPoP "+bound)
			return r
		}, 400, CodeInvalidRequest, "more than one Authorization"},
		{"two dpop headers", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Add("DPoP", r.Header.Get("DPoP"))
			return r
		}, 400, CodeInvalidRequest, "more than one DPoP"},
		{"ticket in the query", func() *http.Request {
			return f.request("GET", "/v1/a?t="+url.QueryEscape(bound), bound, nil)
		}, 400, CodeInvalidRequest, "query string"},
		{"access_token in the query", func() *http.Request {
			return f.request("GET", "/v1/a?access_token=x", bound, nil)
		}, 400, CodeInvalidRequest, "query string"},
		{"ticket in a form body", func() *http.Request {
			r := f.request("POST", "/v1/a", bound, strings.NewReader("access_token="+bound))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, 400, CodeInvalidRequest, "form body"},
		{"bound ticket as bearer (downgrade)", func() *http.Request {
			r := httptest.NewRequest("GET", "/v1/a", nil)
			r.Header.Set("Authorization", "Bearer "+bound)
			return r
		}, 401, CodeInvalidToken, "RFC 9449 §7.2"},
		{"unbound bearer not allowed", func() *http.Request {
			r := httptest.NewRequest("GET", "/v1/a", nil)
			r.Header.Set("Authorization", "Bearer "+unbound)
			return r
		}, 401, CodeInvalidToken, "only tickets bound"},
		{"unbound ticket under dpop", func() *http.Request { return f.request("GET", "/v1/a", unbound, nil) }, 401, CodeInvalidToken, "bound to no holder"},
		{"malformed ticket", func() *http.Request { return f.request("GET", "/v1/a", bound[:len(bound)-3], nil) }, 401, CodeInvalidToken, "malformed"},
		{"not a ticket", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Set("Authorization", "DPoP eyJhbGciOi.x.y")
			return r
		}, 401, CodeInvalidToken, "not a ticket"},
		{"tampered ticket", func() *http.Request {
			b := []byte(bound)
			i := len(b) - 20 // in the last block's tag
			b[i] = map[bool]byte{true: 'B', false: 'A'}[b[i] == 'A']
			return f.request("GET", "/v1/a", string(b), nil)
		}, 401, CodeInvalidToken, ""},
		{"another root key", func() *http.Request {
			return f.request("GET", "/v1/a", f.mintWith(other, "tools=GET", "holder="+f.holder.Thumbprint()), nil)
		}, 401, CodeInvalidToken, "chain"},
		{"expired", func() *http.Request {
			f.now = t0.Add(-2 * time.Hour) // minted with until=1h, two hours ago
			tk := f.mint(true, "tools=GET")
			f.now = t0
			return f.request("GET", "/v1/a", tk, nil)
		}, 401, CodeInvalidToken, "caveat until"},
		{"other audience", func() *http.Request {
			return f.request("GET", "/v1/a", f.mint(true, "aud=billing"), nil)
		}, 401, CodeInvalidToken, "caveat aud"},
		{"missing proof", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Del("DPoP")
			return r
		}, 401, CodeInvalidProof, "no DPoP proof"},
		{"proof by another key", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Set("DPoP", f.proofBy(stranger, "GET", public+"/v1/a", bound, n))
			return r
		}, 401, CodeInvalidProof, "jkt"},
		{"htm mismatch", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Set("DPoP", f.proofBy(f.holder, "POST", public+"/v1/a", bound, n))
			return r
		}, 401, CodeInvalidProof, "htm"},
		{"htu mismatch", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/b", bound, n))
			return r
		}, 401, CodeInvalidProof, "htu"},
		{"ath mismatch", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", unbound, n))
			return r
		}, 401, CodeInvalidProof, "ath"},
		{"no nonce", func() *http.Request {
			r := f.request("GET", "/v1/a", bound, nil)
			r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", bound, ""))
			return r
		}, 401, CodeUseNonce, "nonce"},
		{"tool refused", func() *http.Request { return f.request("DELETE", "/v1/a", bound, nil) }, 403, CodeInsufficientScope, "caveat tools"},
		{"path refused", func() *http.Request { return f.request("GET", "/v2/a", bound, nil) }, 403, CodeInsufficientScope, "caveat paths"},
		{"host refused", func() *http.Request {
			return f.request("GET", "/v1/a", f.mint(true, "hosts=other.example.com"), nil)
		}, 403, CodeInsufficientScope, "caveat hosts"},
		{"dot-dot path", func() *http.Request { return f.request("GET", "/v1/../admin", bound, nil) }, 400, CodeInvalidRequest, ".. segment"},
		{"encoded dot-dot path", func() *http.Request { return f.request("GET", "/v1/%2e%2e/admin", bound, nil) }, 400, CodeInvalidRequest, ".. segment"},
		{"encoded slash", func() *http.Request { return f.request("GET", "/v1/a%2Fb", bound, nil) }, 400, CodeInvalidRequest, "encoded /"},
		{"empty segment", func() *http.Request { return f.request("GET", "/v1//a", bound, nil) }, 400, CodeInvalidRequest, "empty segment"},
		{"body over the limit", func() *http.Request {
			r := f.request("POST", "/v1/a", bound, strings.NewReader(`{"a":"`+strings.Repeat("x", DefaultMaxBodyBytes)+`"}`))
			r.Header.Set("Content-Type", "application/json")
			return r
		}, 413, CodeInvalidRequest, "over"},
		{"body over the limit, length unknown", func() *http.Request {
			r := f.request("POST", "/v1/a", bound, strings.NewReader(`{"a":"`+strings.Repeat("x", DefaultMaxBodyBytes)+`"}`))
			r.Header.Set("Content-Type", "application/json")
			r.ContentLength = -1
			return r
		}, 413, CodeInvalidRequest, "over"},
		{"other scheme", func() *http.Request {
			r := httptest.NewRequest("GET", "/v1/a", nil)
			r.Header.Set("Authorization", "Basic dXNlcjpwYXNz")
			return r
		}, 401, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := f.served.Load()
			w := f.do(c.build())
			if f.served.Load() != before {
				t.Fatal("a refused request reached the handler")
			}
			checkRefusal(t, w, c.status, c.code, c.desc, false)
		})
	}
}

// checkRefusal checks a refusal's status, challenge and body.
func checkRefusal(t *testing.T, w *httptest.ResponseRecorder, status int, code, desc string, bearer bool) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d; body %s", w.Code, status, w.Body)
	}
	ch := w.Header().Values("WWW-Authenticate")
	if status == 413 {
		return
	}
	if len(ch) == 0 || !strings.HasPrefix(ch[0], `DPoP algs="ES256 EdDSA Ed25519"`) {
		t.Fatalf("challenge %q, want a DPoP challenge with algs", ch)
	}
	if got := hasBearer(ch); got != bearer {
		t.Fatalf("challenges %q: bearer challenge %v, want %v", ch, got, bearer)
	}
	if code == "" {
		if strings.Contains(ch[0], "error=") {
			t.Fatalf("challenge %q has an error code for a request without credentials", ch[0])
		}
		return
	}
	if !strings.Contains(ch[0], `error="`+code+`"`) {
		t.Fatalf("challenge %q, want error=%q", ch[0], code)
	}
	var body errorBody
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	if body.Error != code || !strings.Contains(body.Description, desc) {
		t.Fatalf("body error %q description %q, want %q with %q", body.Error, body.Description, code, desc)
	}
	if strings.Contains(w.Body.String(), "tkt1_") || strings.Contains(strings.Join(ch, " "), "tkt1_") {
		t.Fatal("the refusal echoes the ticket")
	}
	if code == CodeUseNonce && w.Header().Get(NonceHeader) == "" {
		t.Fatal("use_dpop_nonce without a DPoP-Nonce header")
	}
}

func hasBearer(ch []string) bool {
	for _, c := range ch {
		if strings.HasPrefix(c, "Bearer") {
			return true
		}
	}
	return false
}

// A proof's refusal comes before the caveats': a client that is not the
// holder learns nothing of the ticket's scope from the status; the body
// lists every refusal.
func TestRefusalPrecedence(t *testing.T) {
	f := newFixture(t, nil)
	bound := f.mint(true, "tools=GET", "paths=/v1/")
	stranger, _ := fixedkey.Holder(key.ES256, "another holder")
	r := f.request("DELETE", "/v2/a", bound, nil)
	r.Header.Set("DPoP", f.proofBy(stranger, "DELETE", public+"/v2/a", bound, f.nonce()))
	w := f.do(r)
	checkRefusal(t, w, 401, CodeInvalidProof, "jkt", false)
	var body errorBody
	json.Unmarshal(w.Body.Bytes(), &body)
	if len(body.Refusals) != 3 || body.Refusals[2].Check != "dpop" {
		t.Fatalf("refusals %+v", body.Refusals)
	}
	// An expired ticket is invalid_token whatever else refuses.
	f.now = t0.Add(-2 * time.Hour)
	old := f.mint(true, "tools=GET")
	f.now = t0
	r = f.request("DELETE", "/v2/a", old, nil)
	r.Header.Set("DPoP", f.proofBy(stranger, "DELETE", public+"/v2/a", old, f.nonce()))
	checkRefusal(t, f.do(r), 401, CodeInvalidToken, "until", false)
}
