package dpophttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestIdempotencyKey: the first request under a key runs; a repeat (with
// a fresh proof) gets the first response back, status, the handler's
// headers and body byte for byte, without reaching the handler or being
// charged; the key with another request is 422, during the first request
// 409; a repeat that reuses the first request's proof is refused as a
// replayed proof; a malformed key is 400.
func TestIdempotencyKey(t *testing.T) {
	f := newFixture(t, nil)
	tk := f.mint(true, "tools=POST", "calls=2")
	keyed := func(path, key string) *http.Request {
		r := f.request("POST", path, tk, nil)
		r.Header.Set(IdempotencyKeyHeader, key)
		return r
	}
	body := "created \x00\xff\n"
	f.inner = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Order", "17")
		w.WriteHeader(201)
		w.Write([]byte(body))
	}
	first := keyed("/v1/orders", `"order-1"`)
	if w := f.do(first); w.Code != 201 || w.Body.String() != body || w.Header().Get(ReplayedHeader) != "" {
		t.Fatalf("first: %d %q %v", w.Code, w.Body, w.Header())
	}
	for range 2 {
		w := f.do(keyed("/v1/orders", `"order-1"`))
		if w.Code != 201 || w.Body.String() != body || w.Header().Get("X-Order") != "17" || w.Header().Get(ReplayedHeader) != "true" {
			t.Fatalf("repeat: %d %q %v", w.Code, w.Body, w.Header())
		}
	}
	if n := f.served.Load(); n != 1 {
		t.Fatalf("the handler ran %d times", n)
	}
	w := f.do(keyed("/v1/other", `"order-1"`))
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), CodeKeyReused) || w.Header().Get("WWW-Authenticate") != "" {
		t.Fatalf("another request: %d %s", w.Code, w.Body)
	}
	// The proof of the first request, sent again: refused, not replayed.
	again := httptest.NewRequest("POST", first.URL.String(), nil)
	again.Header = first.Header.Clone()
	checkRefusal(t, f.do(again), 401, CodeInvalidProof, "replayed", false)
	for _, bad := range []string{`order-1`, `"a b"`, `""`, `"x\"y"`} {
		if w := f.do(keyed("/v1/orders", bad)); w.Code != 400 {
			t.Fatalf("key %s: %d %s", bad, w.Code, w.Body)
		}
	}

	// In flight: a repeat while the handler runs.
	running, done := make(chan struct{}), make(chan struct{})
	f.inner = func(w http.ResponseWriter, r *http.Request) {
		close(running)
		<-done
		w.WriteHeader(200)
	}
	go f.do(keyed("/v1/orders", `"order-2"`))
	<-running
	w = f.do(keyed("/v1/orders", `"order-2"`))
	close(done)
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), CodeKeyInFlight) {
		t.Fatalf("in flight: %d %s", w.Code, w.Body)
	}
	// Two calls charged (order-1, order-2): the budget is spent.
	checkRefusal(t, f.do(keyed("/v1/orders", `"order-3"`)), 403, CodeInsufficientScope, "budget", false)
}
