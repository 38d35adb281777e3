package dpophttp_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/key"
)

func get(t *testing.T, c *http.Client, method, u string, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// onlyReader hides a reader's type, so that http.NewRequest sets no
// GetBody: the body can be sent once.
type onlyReader struct{ io.Reader }

// A first request meets use_dpop_nonce and is sent once more with the
// nonce, body included (GetBody); the next one carries the nonce from
// the start. Each proof is fresh and bound to the ticket as sent.
func TestTransportNonceRetry(t *testing.T) {
	h := newHolder(t, key.ES256)
	tk := mintFor(t, h)
	s := newFakeServer(t, h.Thumbprint(), "n-1")
	tr, err := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: tr}
	resp, body := get(t, c, "POST", s.URL+"/notes?x=1", strings.NewReader(`{"a":1}`))
	if resp.StatusCode != 200 || body != `ok {"a":1}` {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	resp, _ = get(t, c, "GET", s.URL+"/notes", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("second request: %d", resp.StatusCode)
	}
	got := s.requests()
	if len(got) != 3 || got[0].status != 401 || got[1].status != 200 || got[2].status != 200 {
		t.Fatalf("requests %+v", got)
	}
	if got[1].body != `{"a":1}` {
		t.Fatalf("the retry's body %q", got[1].body)
	}
	sum := sha256.Sum256([]byte(tk.String()))
	for i, r := range got {
		if r.auth != "DPoP "+tk.String() || len(r.proofs) != 1 {
			t.Fatalf("request %d: authorization %.20q, %d proofs", i, r.auth, len(r.proofs))
		}
		if proofClaim(t, r.proofs[0], "ath") != base64.RawURLEncoding.EncodeToString(sum[:]) {
			t.Fatalf("request %d: ath", i)
		}
		if htu := proofClaim(t, r.proofs[0], "htu"); htu != s.URL+"/notes" {
			t.Fatalf("request %d: htu %q", i, htu)
		}
		if want := map[int]string{0: "", 1: "n-1", 2: "n-1"}[i]; proofClaim(t, r.proofs[0], "nonce") != want {
			t.Fatalf("request %d: nonce %q, want %q", i, proofClaim(t, r.proofs[0], "nonce"), want)
		}
	}
	if proofClaim(t, got[0].proofs[0], "jti") == proofClaim(t, got[1].proofs[0], "jti") {
		t.Fatal("the retry reused the jti")
	}
}

// Without GetBody the body cannot be sent again: the challenge is the
// answer. And a retry happens once: a server that wants yet another
// nonce gets its challenge back.
func TestTransportRetryLimits(t *testing.T) {
	h := newHolder(t, key.Ed25519)
	tk := mintFor(t, h)
	t.Run("no GetBody", func(t *testing.T) {
		s := newFakeServer(t, h.Thumbprint(), "n-1")
		tr, _ := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
		resp, _ := get(t, &http.Client{Transport: tr}, "POST", s.URL+"/x", onlyReader{strings.NewReader("body")})
		if resp.StatusCode != 401 || resp.Header.Get("DPoP-Nonce") != "n-1" || len(s.requests()) != 1 {
			t.Fatalf("%d, %d requests", resp.StatusCode, len(s.requests()))
		}
		// The nonce was learnt all the same: the next request has it.
		resp, _ = get(t, &http.Client{Transport: tr}, "POST", s.URL+"/x", onlyReader{strings.NewReader("body")})
		if resp.StatusCode != 200 || len(s.requests()) != 2 {
			t.Fatalf("%d, %d requests", resp.StatusCode, len(s.requests()))
		}
	})
	t.Run("once", func(t *testing.T) {
		s := newFakeServer(t, h.Thumbprint(), "n-0")
		s.rotate = true
		tr, _ := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
		resp, _ := get(t, &http.Client{Transport: tr}, "POST", s.URL+"/x", bytes.NewReader([]byte("body")))
		if got := s.requests(); resp.StatusCode != 401 || len(got) != 2 {
			t.Fatalf("%d, %d requests", resp.StatusCode, len(got))
		}
	})
	t.Run("other refusals are not retried", func(t *testing.T) {
		s := newFakeServer(t, newHolder(t, key.Ed25519).Thumbprint(), "")
		tr, _ := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
		resp, _ := get(t, &http.Client{Transport: tr}, "GET", s.URL+"/x", nil)
		if resp.StatusCode != 401 || len(s.requests()) != 1 {
			t.Fatalf("%d, %d requests", resp.StatusCode, len(s.requests()))
		}
	})
}

// Nonces are per origin: one origin's nonce never goes to another.
func TestTransportNoncePerOrigin(t *testing.T) {
	h := newHolder(t, key.ES256)
	tk := mintFor(t, h)
	a := newFakeServer(t, h.Thumbprint(), "nonce-of-a")
	b := newFakeServer(t, h.Thumbprint(), "")
	tr, _ := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
	c := &http.Client{Transport: tr}
	for _, u := range []string{a.URL + "/1", b.URL + "/1", a.URL + "/2", b.URL + "/2"} {
		if resp, _ := get(t, c, "GET", u, nil); resp.StatusCode != 200 {
			t.Fatalf("%s: %d", u, resp.StatusCode)
		}
	}
	for _, r := range b.requests() {
		if n := proofClaim(t, r.proofs[0], "nonce"); n != "" {
			t.Fatalf("origin b was sent nonce %q", n)
		}
	}
	if got := a.requests(); len(got) != 3 || proofClaim(t, got[2].proofs[0], "nonce") != "nonce-of-a" {
		t.Fatalf("origin a: %d requests", len(got))
	}
}

// The ticket never goes where its hosts or aud caveats say it may not:
// nothing is sent, and the error says which caveat.
func TestTransportOriginCaveats(t *testing.T) {
	h := newHolder(t, key.ES256)
	s := newFakeServer(t, h.Thumbprint(), "")
	host := strings.Split(strings.TrimPrefix(s.URL, "http://"), ":")[0] // 127.0.0.1
	for _, c := range []struct {
		name     string
		caveats  []string
		audience func(string) string
		allowed  bool
	}{
		{"hosts lists it", []string{"hosts=" + host}, nil, true},
		{"hosts does not", []string{"hosts=api.example.org"}, nil, false},
		{"aud names the host", []string{"aud=" + host}, nil, true},
		{"aud names another", []string{"aud=api.example.org"}, nil, false},
		{"aud as the origin names itself", []string{"aud=api.example.org"}, func(string) string { return "api.example.org" }, true},
		{"hosts and aud, aud excludes", []string{"hosts=" + host, "aud=other"}, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(s.requests())
			tr, err := dpophttp.NewTransport(mintFor(t, h, c.caveats...), h, dpophttp.ClientOptions{Audience: c.audience})
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest("GET", s.URL+"/x", nil)
			resp, err := tr.RoundTrip(req)
			sent := len(s.requests()) - before
			if c.allowed {
				if err != nil || resp.StatusCode != 200 || sent != 1 {
					t.Fatalf("%v, %d sent", err, sent)
				}
				resp.Body.Close()
				return
			}
			if !errors.Is(err, dpophttp.ErrNotForOrigin) || sent != 0 || !strings.HasPrefix(err.Error(), "dpophttp: ") ||
				strings.Count(err.Error(), "dpophttp:") != 1 || !strings.Contains(err.Error(), "caveat ") {
				t.Fatalf("%v, %d sent", err, sent)
			}
		})
	}
	// A later block narrows hosts: it counts too.
	tk := mintFor(t, h, "hosts="+host+",api.example.org")
	narrower, err := tk.Attenuate(caveatsOf(t, "hosts=api.example.org"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := dpophttp.NewTransport(narrower, h, dpophttp.ClientOptions{})
	req, _ := http.NewRequest("GET", s.URL+"/x", nil)
	if _, err := tr.RoundTrip(req); !errors.Is(err, dpophttp.ErrNotForOrigin) || !strings.Contains(err.Error(), "block 1") {
		t.Fatalf("a narrowing block 1: %v", err)
	}
}

// A redirect to another origin goes without the ticket and proof; a
// redirect within the origin keeps them; and back to the first origin
// after another, not any more.
func TestTransportRedirects(t *testing.T) {
	h := newHolder(t, key.ES256)
	tk := mintFor(t, h)
	a := newFakeServer(t, h.Thumbprint(), "")
	b := newFakeServer(t, h.Thumbprint(), "")
	a.redirect("/away", b.URL+"/there")
	a.redirect("/near", "/here")
	b.redirect("/back", a.URL+"/home")
	tr, _ := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
	c := &http.Client{Transport: tr}

	if _, err := c.Post(a.URL+"/away", "text/plain", strings.NewReader("secret body")); !errors.Is(err, dpophttp.ErrNotForOrigin) {
		t.Fatalf("redirect to another origin: %v", err)
	}
	if len(b.requests()) != 0 {
		t.Fatalf("the other origin was sent %+v", b.requests())
	}
	if resp, _ := get(t, c, "GET", a.URL+"/near", nil); resp.StatusCode != 200 {
		t.Fatalf("redirect within the origin: %d", resp.StatusCode)
	}
	got := a.requests()
	if len(got) != 3 || got[2].path != "/here" || got[2].auth != "DPoP "+tk.String() || got[2].status != 200 {
		t.Fatalf("origin a: %+v", got)
	}
	// b redirects back to a: a chain that left a never reaches it again.
	if _, err := c.Get(b.URL + "/back"); !errors.Is(err, dpophttp.ErrNotForOrigin) {
		t.Fatalf("redirect back to a: %v", err)
	}
	if len(a.requests()) != 3 {
		t.Fatalf("origin a was sent a redirected request: %+v", a.requests()[3:])
	}
}

// A bound ticket needs its holder's key; an unbound one without a key
// goes as a Bearer token, never with a proof.
func TestTransportKeys(t *testing.T) {
	h, other := newHolder(t, key.ES256), newHolder(t, key.Ed25519)
	bound := mintFor(t, h)
	for name, k := range map[string]*key.Holder{"no key": nil, "another key": other} {
		if _, err := dpophttp.NewTransport(bound, k, dpophttp.ClientOptions{}); !errors.Is(err, dpophttp.ErrHolderKey) ||
			strings.Contains(err.Error(), bound.String()) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	tr, _ := dpophttp.NewTransport(mintFor(t, h), h, dpophttp.ClientOptions{})
	if err := tr.Replace(bound, other); !errors.Is(err, dpophttp.ErrHolderKey) {
		t.Fatalf("Replace with another key: %v", err)
	}
	unbound := mintFor(t, nil)
	s := newFakeServer(t, h.Thumbprint(), "")
	tr, err := dpophttp.NewTransport(unbound, nil, dpophttp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := get(t, &http.Client{Transport: tr}, "GET", s.URL+"/x", nil); resp.StatusCode != 200 {
		t.Fatalf("bearer: %d", resp.StatusCode)
	}
	if got := s.requests(); got[0].auth != "Bearer "+unbound.String() || len(got[0].proofs) != 0 {
		t.Fatalf("unbound: %+v", got[0])
	}
}

// An origin that lists Ed25519 and not EdDSA in its algs gets Ed25519
// proofs from an Ed25519 key: once the refusal says so (retried once),
// and from then on.
func TestTransportEd25519Name(t *testing.T) {
	h := newHolder(t, key.Ed25519)
	tk := mintFor(t, h)
	s := newFakeServer(t, h.Thumbprint(), "")
	s.algs = []jose.SignatureAlgorithm{jose.ES256, dpop.Ed25519}
	tr, _ := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
	c := &http.Client{Transport: tr}
	for i := range 2 {
		if resp, _ := get(t, c, "POST", s.URL+"/x", strings.NewReader("b")); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
	var algs []string
	for _, r := range s.requests() {
		algs = append(algs, proofHeader(t, r.proofs[0], "alg"))
	}
	if strings.Join(algs, " ") != "EdDSA Ed25519 Ed25519" {
		t.Fatalf("algs sent: %v", algs)
	}
	// An origin that knows EdDSA keeps getting EdDSA.
	s2 := newFakeServer(t, h.Thumbprint(), "")
	get(t, c, "GET", s2.URL+"/x", nil)
	if a := proofHeader(t, s2.requests()[0].proofs[0], "alg"); a != "EdDSA" {
		t.Fatalf("default alg %s", a)
	}
}

// RoundTrip leaves the caller's request as it was, and refuses URLs
// that have no origin to check.
func TestTransportRequestUntouched(t *testing.T) {
	h := newHolder(t, key.ES256)
	s := newFakeServer(t, h.Thumbprint(), "")
	tr, _ := dpophttp.NewTransport(mintFor(t, h), h, dpophttp.ClientOptions{})
	req, _ := http.NewRequest("GET", s.URL+"/x", nil)
	req.Header.Set("Authorization", "Basic dTpw")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.Header.Get("Authorization") != "Basic dTpw" || req.Header.Get("DPoP") != "" {
		t.Fatalf("the caller's request changed: %v", req.Header)
	}
	// An empty Method is GET to net/http, and so to the proof.
	resp, err = tr.RoundTrip(&http.Request{URL: mustURL(t, s.URL+"/y"), Header: http.Header{}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("empty method: %v", err)
	}
	resp.Body.Close()
	for _, u := range []string{"ftp://127.0.0.1/x", "http://user@127.0.0.1/x"} {
		r := &http.Request{Method: "GET", URL: mustURL(t, u), Header: http.Header{}}
		if _, err := tr.RoundTrip(r); err == nil {
			t.Fatalf("%s: sent", u)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
