package dpophttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzHandler sends the middleware requests with any Authorization,
// DPoP, forwarding and discharge headers, path, content type and body.
// It must never panic; a request reaches the handler only allowed, with
// its decision in the context; every answer it writes itself is a
// refusal whose challenges are printable ASCII and never hold a ticket.
func FuzzHandler(f *testing.F) {
	fx := newFixture(f, func(o *Options) {
		o.AllowBearer = true
		o.Routes = []Route{{Pattern: "POST /v1/notes", Tool: "notes.create"}}
		o.MaxBodyBytes = 4 << 10
	})
	bound := fx.mint(true, "tools=GET,notes.create", "paths=/v1/", "calls=1000")
	bearer := fx.mint(false, "tools=GET")
	proof := fx.proofBy(fx.holder, "GET", public+"/v1/a", bound, fx.nonce())
	f.Add("DPoP "+bound, proof, "", "", "/v1/a", "", "")
	f.Add("DPoP "+bound, fx.proofBy(fx.holder, "POST", public+"/v1/notes", bound, fx.nonce()), "", "", "/v1/notes", "application/json", `{"a":1}`)
	f.Add("Bearer "+bearer, "", "evil.example.com", "", "/v1/a", "", "")
	f.Add("Bearer "+bound, proof, "", "dis1_AAAA", "/v1/%2e%2e/a", "application/x-www-form-urlencoded", "access_token=x")
	f.Add("dpop  "+bound, proof+"x", "a, b", "", "/v1//a", "application/json", `{"a":1,"a":2}`)
	f.Add("", proof, "", "", "/", "", "")
	f.Fuzz(func(t *testing.T, auth, dp, xfh, discharge, path, ctype, body string) {
		u, err := url.Parse("http://internal" + "/" + strings.TrimPrefix(path, "/"))
		if err != nil {
			return
		}
		r := &http.Request{Method: "GET", URL: u, Header: http.Header{}, RemoteAddr: "192.0.2.1:1234", Host: "internal",
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
		if body != "" {
			r.Method = "POST"
		}
		for name, v := range map[string]string{"Authorization": auth, "DPoP": dp, "X-Forwarded-Host": xfh,
			DischargeHeader: discharge, "Content-Type": ctype} {
			if v != "" {
				r.Header.Set(name, v)
			}
		}
		before := fx.served.Load()
		var got Decision
		var ok bool
		fx.inner = func(w http.ResponseWriter, r *http.Request) { got, ok = FromContext(r.Context()) }
		w := httptest.NewRecorder()
		fx.h.ServeHTTP(w, r)
		if fx.served.Load() != before {
			if !ok || !got.Allowed {
				t.Fatal("the handler ran without an allowed decision")
			}
			return
		}
		if w.Code < 400 {
			t.Fatalf("status %d without the handler", w.Code)
		}
		for _, c := range w.Header().Values("WWW-Authenticate") {
			for i := 0; i < len(c); i++ {
				if c[i] < 0x20 || c[i] > 0x7e {
					t.Fatalf("challenge byte %#x: %q", c[i], c)
				}
			}
			if strings.Contains(c, "tkt1_") {
				t.Fatalf("challenge holds a ticket: %q", c)
			}
		}
	})
}
