package dpophttp_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// fakeServer is a minimal resource server written from RFC 9449 with the
// dpop package alone: it checks "Authorization: DPoP" with one DPoP proof
// for the request's method and URL, the ticket as sent (ath), the
// holder's thumbprint, its current nonce (§8: a missing or stale one is
// answered by use_dpop_nonce and a DPoP-Nonce) and replay, and records
// what arrived.
type fakeServer struct {
	*httptest.Server
	jkt     string
	algs    []jose.SignatureAlgorithm // nil: dpop's default
	rotate  bool                      // every proof meets use_dpop_nonce with a new nonce
	tickets map[string]bool           // the ticket texts it accepts; nil: any
	replay  *dpop.MemoryReplayCache

	mu        sync.Mutex
	nonce     string // "" demands none
	n         int
	seen      []seen
	redirects map[string]string // path: where a request is redirected (307), credentials unchecked
}

// seen is one request as it arrived.
type seen struct {
	method, path, auth, body string
	proofs                   []string
	status                   int
}

func newFakeServer(t *testing.T, jkt, nonce string) *fakeServer {
	s := &fakeServer{jkt: jkt, nonce: nonce, replay: dpop.NewMemoryReplayCache(0)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) algsText() string {
	if s.algs == nil {
		return "ES256 EdDSA Ed25519"
	}
	var names []string
	for _, a := range s.algs {
		names = append(names, string(a))
	}
	return strings.Join(names, " ")
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := seen{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization"), body: string(body), proofs: r.Header.Values("DPoP")}
	s.mu.Lock()
	to, redirect := s.redirects[r.URL.Path]
	s.mu.Unlock()
	var status int
	if redirect {
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
		status = http.StatusTemporaryRedirect
	} else {
		status = s.check(w, r, rec)
	}
	rec.status = status
	s.mu.Lock()
	s.seen = append(s.seen, rec)
	s.mu.Unlock()
	if status == http.StatusOK {
		fmt.Fprintf(w, "ok %s", body)
	}
}

func (s *fakeServer) check(w http.ResponseWriter, r *http.Request, rec seen) int {
	challenge := func(code, nonce string) int {
		w.Header().Set("WWW-Authenticate", `DPoP algs="`+s.algsText()+`", error="`+code+`"`)
		if nonce != "" {
			w.Header().Set("DPoP-Nonce", nonce)
		}
		w.WriteHeader(http.StatusUnauthorized)
		return http.StatusUnauthorized
	}
	if tk, ok := strings.CutPrefix(rec.auth, "Bearer "); ok && len(rec.proofs) == 0 && (s.tickets == nil || s.tickets[tk]) {
		return http.StatusOK // an unbound ticket: this server takes bearer tickets
	}
	tk, ok := strings.CutPrefix(rec.auth, "DPoP ")
	if !ok || len(rec.proofs) != 1 || s.tickets != nil && !s.tickets[tk] {
		return challenge("invalid_token", "")
	}
	s.mu.Lock()
	nonce := s.nonce
	s.mu.Unlock()
	p, err := dpop.Verify(rec.proofs[0], dpop.Expectations{Method: r.Method, URI: s.URL + r.URL.Path, Nonce: nonce,
		AccessToken: tk, Thumbprint: s.jkt, Algorithms: s.algs}, time.Now())
	if errors.Is(err, dpop.ErrNonce) || s.rotate {
		if s.rotate {
			s.mu.Lock()
			s.n++
			s.nonce = fmt.Sprintf("nonce-%d", s.n)
			nonce = s.nonce
			s.mu.Unlock()
		}
		return challenge("use_dpop_nonce", nonce)
	}
	if err != nil || p.Remember(s.replay, time.Now()) != nil {
		return challenge("invalid_dpop_proof", "")
	}
	return http.StatusOK
}

func (s *fakeServer) redirect(from, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.redirects == nil {
		s.redirects = map[string]string{}
	}
	s.redirects[from] = to
}

func (s *fakeServer) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.seen...)
}

// proofClaim returns a claim of a proof's payload, "" when absent.
func proofClaim(t *testing.T, proof, name string) string {
	t.Helper()
	parts := strings.Split(proof, ".")
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	v, _ := m[name].(string)
	return v
}

// proofHeader returns a member of a proof's protected header.
func proofHeader(t *testing.T, proof, name string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(proof, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	v, _ := m[name].(string)
	return v
}

// mintFor returns a ticket with the caveats, bound to holder when it is
// not nil.
func mintFor(t *testing.T, holder *key.Holder, caveats ...string) *token.Ticket {
	t.Helper()
	root, err := key.Generate(key.HMACSHA256, "root")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := caveat.ParseAll(append([]string{"tools=fetch"}, caveats...), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if holder != nil {
		h, err := caveat.NewHolder(holder.Thumbprint())
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, h)
	}
	tk, err := token.Mint(root, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func caveatsOf(t *testing.T, texts ...string) []caveat.Caveat {
	t.Helper()
	cs, err := caveat.ParseAll(texts, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func newHolder(t *testing.T, alg key.Alg) *key.Holder {
	t.Helper()
	h, err := key.GenerateHolder(alg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
