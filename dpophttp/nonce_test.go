package dpophttp

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestNonces(t *testing.T) {
	f := newFixture(t, nil)
	tk := f.mint(true, "tools=GET")
	// The first request has no nonce: 401 use_dpop_nonce with one.
	r := f.request("GET", "/v1/a", tk, nil)
	r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", tk, ""))
	w := f.do(r)
	checkRefusal(t, w, 401, CodeUseNonce, "nonce", false)
	n := w.Header().Get(NonceHeader)
	// The client retries with it: allowed, and no new nonce is due.
	r = f.request("GET", "/v1/a", tk, nil)
	r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", tk, n))
	if w = f.do(r); w.Code != 200 || w.Header().Get(NonceHeader) != "" {
		t.Fatalf("status %d, nonce %q", w.Code, w.Header().Get(NonceHeader))
	}
	// One window later the nonce still works, and a fresh one comes with the answer.
	f.now = f.now.Add(DefaultNonceWindow)
	r = f.request("GET", "/v1/a", tk, nil)
	r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", tk, n))
	if w = f.do(r); w.Code != 200 || w.Header().Get(NonceHeader) == "" || w.Header().Get(NonceHeader) == n {
		t.Fatalf("status %d, nonce %q", w.Code, w.Header().Get(NonceHeader))
	}
	// Two windows later it has expired.
	f.now = f.now.Add(DefaultNonceWindow)
	r = f.request("GET", "/v1/a", tk, nil)
	r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", tk, n))
	checkRefusal(t, f.do(r), 401, CodeUseNonce, "nonce", false)
	// A nonce of another key, or one forged for the current window, is no nonce.
	g := newFixture(t, func(o *Options) { o.NonceKey = bytes.Repeat([]byte("x"), 32) })
	g.now = f.now
	r = f.request("GET", "/v1/a", tk, nil)
	r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", tk, g.nonce()))
	checkRefusal(t, f.do(r), 401, CodeUseNonce, "nonce", false)
	// Nonces off: a proof without one is accepted.
	h := newFixture(t, func(o *Options) { o.NoNonce = true })
	if w := h.do(h.request("GET", "/v1/a", h.mint(true, "tools=GET"), nil)); w.Code != 200 || w.Header().Get(NonceHeader) != "" {
		t.Fatalf("without nonces: status %d", w.Code)
	}
}

// A nonce check that accepted every nonce, or only the current window's,
// fails here: the window edges.
func TestNonceWindows(t *testing.T) {
	n := newNonces(bytes.Repeat([]byte{1}, 32), public, time.Minute)
	at := time.Unix(6000, 0) // a window start
	cur := n.current(at)
	for _, c := range []struct {
		d            time.Duration
		valid, fresh bool
	}{{0, true, true}, {59 * time.Second, true, true}, {time.Minute, true, false}, {2*time.Minute - 1, true, false},
		{2 * time.Minute, false, false}, {-time.Nanosecond, false, false}} {
		if v, fr := n.check(cur, at.Add(c.d)); v != c.valid || fr != c.fresh {
			t.Errorf("at +%v: valid %v fresh %v, want %v %v", c.d, v, fr, c.valid, c.fresh)
		}
	}
	other := newNonces(bytes.Repeat([]byte{1}, 32), "https://other.example.com", time.Minute)
	if v, _ := other.check(cur, at); v {
		t.Error("a nonce of another origin is accepted")
	}
	for _, bad := range []string{"", "x", cur + "A", cur[:len(cur)-1] + "B"} {
		if v, _ := n.check(bad, at); v {
			t.Errorf("nonce %q accepted", bad)
		}
	}
}

func TestReplayRefused(t *testing.T) {
	f := newFixture(t, nil)
	tk := f.mint(true, "tools=GET")
	r := f.request("GET", "/v1/a", tk, nil)
	proof := r.Header.Get("DPoP")
	if w := f.do(r); w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	r = f.request("GET", "/v1/a", tk, nil)
	r.Header.Set("DPoP", proof)
	checkRefusal(t, f.do(r), 401, CodeInvalidProof, "replayed", false)
}

func TestBearer(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.AllowBearer = true })
	tk := f.mint(false, "tools=GET", "calls=1")
	get := func() *http.Request {
		r := httptest.NewRequest("GET", "/v1/a", nil)
		r.Header.Set("Authorization", "Bearer "+tk)
		return r
	}
	if w := f.do(get()); w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	w := f.do(get())
	checkRefusal(t, w, 403, CodeInsufficientScope, "budget", true)
	if ch := w.Header().Values("WWW-Authenticate"); ch[1] != `Bearer error="insufficient_scope", error_description="block 0 caveat calls: budget of 1 calls is spent"` {
		t.Fatalf("bearer challenge %q", ch[1])
	}
	// A bound ticket is still refused under Bearer.
	r := httptest.NewRequest("GET", "/v1/a", nil)
	r.Header.Set("Authorization", "Bearer "+f.mint(true, "tools=GET"))
	checkRefusal(t, f.do(r), 401, CodeInvalidToken, "§7.2", true)
	// A proof's refusal is the DPoP challenge's only.
	r = f.request("GET", "/v1/a", f.mint(true, "tools=GET"), nil)
	r.Header.Del("DPoP")
	w = f.do(r)
	if ch := w.Header().Values("WWW-Authenticate"); len(ch) != 2 || ch[1] != "Bearer" {
		t.Fatalf("challenges %q", ch)
	}
	if _, err := New(Options{Keys: f.keys, PublicURL: public, AllowBearer: true, Policy: verifyRequireHolder()}); err == nil {
		t.Fatal("AllowBearer with RequireHolder accepted")
	}
}
