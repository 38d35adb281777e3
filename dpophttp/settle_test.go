package dpophttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

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
