package dpophttp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

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
	r = f.request("POST", "/v1/a", tk.String(), nil)
	r.Header.Set(DischargeHeader, strings.Repeat(x.String()+",", 8)+x.String())
	checkRefusal(t, f.do(r), 400, CodeInvalidRequest, "at most 8 discharges", false)
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

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func verifyRequireHolder() verify.Options { return verify.Options{RequireHolder: true} }

// A body sent too slowly is refused with 408 before the ticket is
// checked, and the handler never runs.
func TestSlowBody(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.BodyTimeout = 200 * time.Millisecond })
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	tk := f.mint(true, "tools=POST")
	r := f.request("POST", "/v1/a", tk, nil)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nAuthorization: %s\r\nDPoP: %s\r\n\r\n{\"a\":",
		r.Header.Get("Authorization"), r.Header.Get("DPoP"))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 408 || time.Since(start) > 5*time.Second || f.served.Load() != 0 {
		t.Fatalf("status %d after %v, served %d", res.StatusCode, time.Since(start), f.served.Load())
	}
}

// TestThresholdMissing: a threshold approval not reached names its
// threshold, who approved and who is waited for, and no key id.
func TestThresholdMissing(t *testing.T) {
	f := newFixture(t, nil)
	var ms []caveat.Member
	for _, id := range []string{"alice", "bob", "carol"} {
		k, _ := fixedkey.Signing(key.Ed25519, id, "approver "+id)
		ms = append(ms, caveat.Member{KeyID: id, Key: [32]byte(fixedkey.Public(k.Verifying()))})
	}
	ac, err := caveat.NewThreshold(2, ms, [16]byte{2}, "")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := caveat.ParseAll([]string{"tools=POST", "until=1h", "holder=" + f.holder.Thumbprint()}, t0)
	tk, err := token.Mint(f.root, append(cs, ac), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := f.do(f.request("POST", "/v1/a", tk.String(), nil))
	checkRefusal(t, w, 403, CodeInsufficientScope, "approval", false)
	var body errorBody
	json.Unmarshal(w.Body.Bytes(), &body)
	if len(body.Approvals) != 1 || body.Approvals[0].KeyID != "" || body.Approvals[0].Need != 2 ||
		len(body.Approvals[0].Approved) != 0 || strings.Join(body.Approvals[0].Waiting, ",") != "alice,bob,carol" {
		t.Fatalf("approvals %+v", body.Approvals)
	}
}
