package dpophttp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

func TestAllowedDecisionInContext(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Routes = []Route{{Pattern: "POST /v1/orders/{id}", Tool: "orders.update"}}
	})
	tk := f.mint(true, "tools=orders.update", "paths=/v1/orders/", "calls=5", "intent=update orders")
	var got Decision
	f.inner = func(w http.ResponseWriter, r *http.Request) {
		got, _ = FromContext(r.Context())
		w.WriteHeader(204)
	}
	w := f.do(f.request("POST", "/v1/orders/7", tk, nil))
	if w.Code != 204 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if !got.Allowed || got.Holder != f.holder.Thumbprint() || len(got.BlockIDs) != 1 || len(got.Budgets) != 1 ||
		got.Intent != "update orders" || got.Request.Tool != "orders.update" || got.Request.Op != "post" {
		t.Fatalf("decision %+v", got)
	}
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("a decision without a request")
	}
	// Without the route, the tool is the method, which the ticket does
	// not name.
	checkRefusal(t, f.do(f.request("GET", "/v1/orders/7", tk, nil)), 403, CodeInsufficientScope, "caveat tools", false)
}

// The route of the http.ServeMux the middleware runs in names the tool.
func TestRequestPattern(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Routes = []Route{{Pattern: "GET /v1/items/{id}", Tool: "items.read"}}
	})
	mux := http.NewServeMux()
	mux.Handle("GET /v1/items/{id}", f.h)
	mux.Handle("GET /v1/other/{id}", f.h)
	tk := f.mint(true, "tools=items.read")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, f.request("GET", "/v1/items/3", tk, nil))
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, f.request("GET", "/v1/other/3", tk, nil))
	checkRefusal(t, w, 403, CodeInsufficientScope, "caveat tools", false)
}

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

func TestSettlement(t *testing.T) {
	f := newFixture(t, nil)
	tk := f.mint(true, "tools=GET", "calls=2")
	// Released: the budget is given back.
	f.inner = func(w http.ResponseWriter, r *http.Request) {
		if !Release(r.Context()) {
			t.Error("Release found no request")
		}
		w.WriteHeader(503)
	}
	for range 3 {
		if w := f.do(f.request("GET", "/v1/a", tk, nil)); w.Code != 503 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	// Captured whatever the status: two calls, then spent.
	f.inner = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }
	for range 2 {
		if w := f.do(f.request("GET", "/v1/a", tk, nil)); w.Code != 500 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	checkRefusal(t, f.do(f.request("GET", "/v1/a", tk, nil)), 403, CodeInsufficientScope, "budget", false)

	// A panic is captured, Release or not.
	tk = f.mint(true, "tools=GET", "calls=1")
	f.inner = func(w http.ResponseWriter, r *http.Request) { Release(r.Context()); panic("handler failed") }
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was swallowed")
			}
		}()
		f.do(f.request("GET", "/v1/a", tk, nil))
	}()
	f.inner = nil
	checkRefusal(t, f.do(f.request("GET", "/v1/a", tk, nil)), 403, CodeInsufficientScope, "budget", false)
	if Release(context.Background()) {
		t.Fatal("Release without a request")
	}
}

// The receipts: one per decision and per settlement, and one per
// refusal the middleware makes itself.
func TestReceipts(t *testing.T) {
	rk, _ := fixedkey.Signing(key.Ed25519, "receipts", "dpophttp receipts")
	path := t.TempDir() + "/r.log"
	log, err := chain.Open(path, rk, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	f := newFixture(t, func(o *Options) { o.Receipts = log })
	tk := f.mint(true, "tools=GET")
	f.do(f.request("GET", "/v1/a", tk, nil))         // allowed, captured
	f.do(f.request("DELETE", "/v1/a", tk, nil))      // refused by the guard
	down := httptest.NewRequest("GET", "/v1/a", nil) // refused before the guard
	down.Header.Set("Authorization", "Bearer "+tk)
	f.do(down)
	f.do(f.request("GET", "/v1/a?access_token=x", tk, nil)) // refused before the ticket is read
	f.do(httptest.NewRequest("GET", "/v1/a", nil))          // no credentials: nothing
	r := f.request("GET", "/v1/a", tk, nil)                 // nonce challenge: nothing
	r.Header.Set("DPoP", f.proofBy(f.holder, "GET", public+"/v1/a", tk, ""))
	f.do(r)
	recs := readRecords(t, path)
	want := []chain.Kind{chain.KindAllowed, chain.KindCaptured, chain.KindRefused, chain.KindRefused, chain.KindRefused}
	if len(recs) != len(want) {
		t.Fatalf("%d receipts, want %d: %v", len(recs), len(want), recs)
	}
	for i, k := range want {
		if recs[i].Kind != k {
			t.Fatalf("receipt %d is %v, want %v", i, recs[i].Kind, k)
		}
	}
	if recs[3].Check != CheckHTTP || recs[3].FamilyID == nil {
		t.Fatalf("early refusal receipt %v", recs[3])
	}
	if recs[4].Check != CheckHTTP || recs[4].FamilyID != nil {
		t.Fatalf("early refusal receipt %v", recs[4])
	}
}

// An untrusted client's X-Forwarded-Host is ignored; a trusted proxy's
// names the public origin.
func TestForwardedHeaders(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")} })
	tk := f.mint(true, "tools=GET")
	spoof := func(remote, host, proofHost string) *http.Request {
		r := f.request("GET", "/v1/a", tk, nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-Host", host)
		r.Header.Set("X-Forwarded-Proto", "https")
		r.Header.Set("DPoP", f.proofBy(f.holder, "GET", "https://"+proofHost+"/v1/a", tk, f.nonce()))
		return r
	}
	// An attacker who captured a proof for evil.example.com replays it
	// here, naming that host: the public URL decides, the proof fails.
	checkRefusal(t, f.do(spoof("192.0.2.7:5000", "evil.example.com", "evil.example.com")), 401, CodeInvalidProof, "htu", false)
	if w := f.do(spoof("192.0.2.7:5000", "evil.example.com", "api.example.com")); w.Code != 200 {
		t.Fatalf("untrusted forwarded host changed the decision: %d %s", w.Code, w.Body)
	}
	// From a trusted proxy, the forwarded host is the public origin.
	if w := f.do(spoof("10.1.2.3:5000", "public.example.net", "public.example.net")); w.Code != 200 {
		t.Fatalf("trusted proxy: %d %s", w.Code, w.Body)
	}
	checkRefusal(t, f.do(spoof("10.1.2.3:5000", "public.example.net", "api.example.com")), 401, CodeInvalidProof, "htu", false)
	// The last element of a list is the trusted proxy's own.
	r := spoof("10.1.2.3:5000", "evil.example.com, public.example.net", "public.example.net")
	if w := f.do(r); w.Code != 200 {
		t.Fatalf("list: %d %s", w.Code, w.Body)
	}
	r = spoof("10.1.2.3:5000", "", "fwd.example.org")
	r.Header.Del("X-Forwarded-Host")
	r.Header.Set("Forwarded", `for=192.0.2.1;host="evil.example.com", for=10.1.2.3;host=fwd.example.org;proto=https`)
	if w := f.do(r); w.Code != 200 {
		t.Fatalf("Forwarded: %d %s", w.Code, w.Body)
	}
	checkRefusal(t, f.do(spoof("10.1.2.3:5000", "a/b@c", "api.example.com")), 400, CodeInvalidRequest, "forwarded host", false)
}

func TestArgsDigest(t *testing.T) {
	f := newFixture(t, nil)
	d, _ := caveat.ArgsDigest([]byte(`{"summary":"ship it","n":1}`))
	c, _ := caveat.ParseAll([]string{"args=" + b64(d)}, t0)
	tk := f.mint(true, "tools=POST", c[0].String())
	post := func(body string) *http.Request {
		r := f.request("POST", "/v1/notes", tk, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json; charset=utf-8")
		return r
	}
	var seen string
	f.inner = func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = string(b)
	}
	// The same JSON in another order and spacing: the same digest, and
	// the handler reads the body as sent.
	if w := f.do(post(`{ "n": 1, "summary": "ship it" }`)); w.Code != 200 || seen != `{ "n": 1, "summary": "ship it" }` {
		t.Fatalf("status %d, body seen %q", w.Code, seen)
	}
	checkRefusal(t, f.do(post(`{"summary":"ship it now","n":1}`)), 403, CodeInsufficientScope, "caveat args", false)
	checkRefusal(t, f.do(post(`{"summary":"ship it","summary":"x","n":1}`)), 403, CodeInsufficientScope, "caveat args", false)
	r := post(`{"summary":"ship it","n":1}`)
	r.Header.Set("Content-Type", "text/plain")
	checkRefusal(t, f.do(r), 403, CodeInsufficientScope, "caveat args", false)
}

func TestApprovalMissing(t *testing.T) {
	f := newFixture(t, nil)
	lead, _ := fixedkey.Signing(key.Ed25519, "pricing-lead", "approver")
	a := caveat.Approver{KeyID: lead.ID(), Nonce: [16]byte{1}, Location: "https://approve.example.com"}
	copy(a.Key[:], fixedkey.Public(lead.Verifying()))
	ac, _ := caveat.NewApproval(a)
	cs, _ := caveat.ParseAll([]string{"tools=POST", "until=1h", "holder=" + f.holder.Thumbprint()}, t0)
	tk, err := token.Mint(f.root, append(cs, ac), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := f.do(f.request("POST", "/v1/a", tk.String(), nil))
	checkRefusal(t, w, 403, CodeInsufficientScope, "approval", false)
	var body errorBody
	json.Unmarshal(w.Body.Bytes(), &body)
	b, _ := tk.Binding(0)
	if len(body.Approvals) != 1 || body.Approvals[0].KeyID != "pricing-lead" || body.Approvals[0].Location != a.Location ||
		body.Approvals[0].Code != token.BindingCode(b) {
		t.Fatalf("approvals %+v", body.Approvals)
	}
	// With the discharge in the header, the request is allowed.
	dcs, _ := caveat.ParseAll([]string{"until=10m"}, t0)
	x, err := token.Approve(lead, b, dcs, t0)
	if err != nil {
		t.Fatal(err)
	}
	r := f.request("POST", "/v1/a", tk.String(), nil)
	r.Header.Set(DischargeHeader, x.String())
	if w := f.do(r); w.Code != 200 {
		t.Fatalf("with the discharge: %d %s", w.Code, w.Body)
	}
	r = f.request("POST", "/v1/a", tk.String(), nil)
	r.Header.Set(DischargeHeader, "dis1_AAAA")
	checkRefusal(t, f.do(r), 400, CodeInvalidRequest, "discharge", false)
}

func TestRevoked(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Store = guard.NewMemoryStore() })
	tk := f.mint(true, "tools=GET")
	// Allowed first (so the ticket is prepared and kept), then revoked:
	// revocation is checked on every request.
	if w := f.do(f.request("GET", "/v1/a", tk, nil)); w.Code != 200 {
		t.Fatalf("before revocation: %d %s", w.Code, w.Body)
	}
	pt, _ := token.Parse(tk)
	if err := f.mw.guard.Revoke(context.Background(), pt, f.now); err != nil {
		t.Fatal(err)
	}
	checkRefusal(t, f.do(f.request("GET", "/v1/a", tk, nil)), 401, CodeInvalidToken, "revoked", false)
}

// failingStore fails every step: the request is refused, never served.
type failingStore struct{ guard.Store }

func (failingStore) Admit(context.Context, guard.Admission) (guard.Verdict, error) {
	return guard.Verdict{}, guard.Failed("test", "admit", errors.New("down"))
}

func TestStoreFailure(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Store = failingStore{guard.NewMemoryStore()} })
	w := f.do(f.request("GET", "/v1/a", f.mint(true, "tools=GET"), nil))
	if w.Code != 503 || f.served.Load() != 0 || len(w.Header().Values("WWW-Authenticate")) != 0 {
		t.Fatalf("status %d, served %d", w.Code, f.served.Load())
	}
}

func TestSanitize(t *testing.T) {
	got := Sanitize("a \"b\" \\ é\n\x00" + strings.Repeat("x", 600))
	if !strings.HasPrefix(got, `a 'b' / ???`) || len(got) != maxDescription {
		t.Fatalf("%q (%d bytes)", got[:20], len(got))
	}
	for _, c := range got {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			t.Fatalf("character %q outside RFC 6750's set", c)
		}
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func verifyRequireHolder() verify.Options { return verify.Options{RequireHolder: true} }

func readRecords(t *testing.T, path string) []chain.Record {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []chain.Record
	for e, err := range chain.Scan(fh) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e.Record)
	}
	return out
}

// The prepared tickets are bounded: past MaxPreparedBytes the cache
// starts over, and every ticket is still decided.
func TestPreparedBounded(t *testing.T) {
	f := newFixture(t, nil)
	f.mw.cache.limit = 16 << 10
	var texts []string
	for i := range 40 {
		texts = append(texts, f.mint(true, "tools=GET", fmt.Sprintf("intent=ticket %d %s", i, strings.Repeat("x", 900))))
	}
	for _, tk := range texts {
		if w := f.do(f.request("GET", "/v1/a", tk, nil)); w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if f.mw.cache.bytes > f.mw.cache.limit || len(f.mw.cache.m) > 12 {
			t.Fatalf("cache holds %d bytes", f.mw.cache.bytes)
		}
	}
	if w := f.do(f.request("GET", "/v1/a", texts[0]+"A", nil)); w.Code != 401 {
		t.Fatalf("a text that is not canonical: %d", w.Code)
	}
}

// A replaced error handler gets every refusal, with its status, code and
// challenges, and writes what it likes.
func TestErrorHandler(t *testing.T) {
	var got *Error
	f := newFixture(t, func(o *Options) {
		o.ErrorHandler = func(w http.ResponseWriter, r *http.Request, e *Error) {
			got = e
			w.WriteHeader(418)
		}
	})
	w := f.do(f.request("DELETE", "/v1/a", f.mint(true, "tools=GET"), nil))
	if w.Code != 418 || got == nil || got.Status != 403 || got.Code != CodeInsufficientScope ||
		len(got.Refusals) != 1 || len(got.Challenges()) != 1 || got.Error() != "dpophttp: insufficient_scope: "+got.Description {
		t.Fatalf("status %d, error %+v", w.Code, got)
	}
}
