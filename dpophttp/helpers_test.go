package dpophttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// t0 is the tests' clock.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const public = "https://api.example.com"

// fixture is a middleware with fixed keys, a holder and a handler that
// counts the requests that reach it.
type fixture struct {
	t      testing.TB
	root   *key.Signing
	keys   *token.Keyring
	holder *key.Holder
	now    time.Time
	opts   Options
	mw     *Middleware
	h      http.Handler
	served atomic.Int64
	inner  http.HandlerFunc // what the protected handler does; nil: 200 "ok"
}

func newFixture(t testing.TB, edit func(*Options)) *fixture {
	t.Helper()
	root, err := fixedkey.Signing(key.Ed25519, "root", "dpophttp root")
	if err != nil {
		t.Fatal(err)
	}
	holder, err := fixedkey.Holder(key.ES256, "dpophttp holder")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(root.Verifying())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, root: root, keys: keys, holder: holder, now: t0}
	f.opts = Options{Keys: keys, PublicURL: public, Now: func() time.Time { return f.now },
		NonceKey: []byte(strings.Repeat("k", 32))}
	if edit != nil {
		edit(&f.opts)
	}
	f.mw, err = New(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	f.h = f.mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.served.Add(1)
		if f.inner != nil {
			f.inner(w, r)
			return
		}
		io.WriteString(w, "ok")
	}))
	return f
}

// mint mints a ticket from caveat texts; with bind, bound to f.holder.
func (f *fixture) mint(bind bool, texts ...string) string {
	f.t.Helper()
	if bind {
		texts = append(texts, "holder="+f.holder.Thumbprint())
	}
	return f.mintWith(f.root, texts...)
}

func (f *fixture) mintWith(root *key.Signing, texts ...string) string {
	f.t.Helper()
	cs, err := caveat.ParseAll(append(texts, "until=1h"), f.now)
	if err != nil {
		f.t.Fatal(err)
	}
	tk, err := token.Mint(root, cs, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return tk.String()
}

// proof makes a proof by h for method and uri, bound to ticket, with nonce.
func (f *fixture) proofBy(h *key.Holder, method, uri, ticket, nonce string) string {
	f.t.Helper()
	p, err := dpop.Make(h, method, uri, dpop.MakeOptions{AccessToken: ticket, Nonce: nonce, IssuedAt: f.now})
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// nonce is the server's current nonce.
func (f *fixture) nonce() string {
	if f.mw.nonce == nil {
		return ""
	}
	return f.mw.nonce.current(f.now)
}

// request builds a DPoP request for a bound ticket with a fresh proof
// carrying the current nonce.
func (f *fixture) request(method, path, ticket string, body io.Reader) *http.Request {
	f.t.Helper()
	r := httptest.NewRequest(method, "http://internal:8080"+path, body)
	r.Header.Set("Authorization", "DPoP "+ticket)
	r.Header.Set("DPoP", f.proofBy(f.holder, method, public+strings.SplitN(path, "?", 2)[0], ticket, f.nonce()))
	return r
}

// do serves r and returns the recorder.
func (f *fixture) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}
