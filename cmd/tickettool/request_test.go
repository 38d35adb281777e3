package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
)

// cmdDPoPServer starts, until the script ends, the tiny resource
// server the request scripts talk to, on a loopback port; $VAR is its
// HOST:PORT and $VAR_PORT its port. It checks "Authorization: DPoP TICKET" and one DPoP proof
// (RFC 9449 §4.3: htm, htu from its own address and the path, ath of the
// ticket as sent, the ticket's holder key, replay) and demands its nonce
// "srv-nonce-1" (use_dpop_nonce, §8); an unbound ticket may come as a
// Bearer token. Then /forbidden answers 403 insufficient_scope with a
// JSON body, /away redirects (307) to the same server under the name
// localhost, another origin, and any other path echoes the method, path,
// Content-Type and body. Every request it receives, challenged or not,
// adds a line to served.log: HOST METHOD PATH SCHEME NONCE STATUS, with
// its own port written PORT.
func cmdDPoPServer(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "dpopserver")
	if len(args) != 1 {
		ts.Fatalf("usage: dpopserver VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	s := &resourceServer{addr: l.Addr().String(), log: ts.MkAbs("served.log"), replay: dpop.NewMemoryReplayCache(0)}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
	ts.Setenv(args[0], s.addr)
	ts.Setenv(args[0]+"_PORT", s.addr[strings.LastIndexByte(s.addr, ':')+1:])
}

type resourceServer struct {
	addr, log string
	replay    *dpop.MemoryReplayCache
	mu        sync.Mutex
}

const resourceNonce = "srv-nonce-1"

func (s *resourceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	status, nonce := s.decide(w, r)
	if status == http.StatusOK {
		switch r.URL.Path {
		case "/forbidden":
			w.Header().Set("WWW-Authenticate", `DPoP algs="ES256 EdDSA", error="insufficient_scope", error_description="block 0 caveat tools: tool notes.delete is not in tools=notes.read"`)
			w.Header().Set("Content-Type", "application/json")
			status = http.StatusForbidden
			w.WriteHeader(status)
			fmt.Fprintln(w, `{"error":"insufficient_scope"}`)
		case "/away":
			status = http.StatusTemporaryRedirect
			http.Redirect(w, r, "http://localhost:"+strings.Split(s.addr, ":")[1]+"/echo", status)
		default:
			fmt.Fprintf(w, "%s %s %s %s\n", r.Method, r.URL.Path, r.Header.Get("Content-Type"), body)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintf(f, "%s %s %s %s %s %d\n", strings.Replace(r.Host, s.addr[strings.LastIndexByte(s.addr, ':'):], ":PORT", 1), r.Method, r.URL.Path, or(scheme, "none"), or(nonce, "-"), status)
		f.Close()
	}
}

// decide checks the credentials; it answers a refusal itself and returns
// its status, or 200 to go on; and the proof's nonce.
func (s *resourceServer) decide(w http.ResponseWriter, r *http.Request) (int, string) {
	refuse := func(code string) (int, string) {
		w.Header().Set("WWW-Authenticate", `DPoP algs="ES256 EdDSA", error="`+code+`"`)
		if code == "use_dpop_nonce" {
			w.Header().Set("DPoP-Nonce", resourceNonce)
		}
		w.WriteHeader(http.StatusUnauthorized)
		return http.StatusUnauthorized, ""
	}
	auth := r.Header.Get("Authorization")
	if text, ok := strings.CutPrefix(auth, "Bearer "); ok {
		t, err := token.Parse(text)
		if err != nil || boundTo(t) != "" || len(r.Header.Values("DPoP")) != 0 {
			return refuse("invalid_token")
		}
		return http.StatusOK, ""
	}
	text, ok := strings.CutPrefix(auth, "DPoP ")
	t, err := token.Parse(text)
	if !ok || err != nil || len(r.Header.Values("DPoP")) != 1 {
		return refuse("invalid_token")
	}
	p, err := dpop.Verify(r.Header.Get("DPoP"), dpop.Expectations{Method: r.Method, URI: "http://" + r.Host + r.URL.Path,
		Nonce: resourceNonce, AccessToken: text, Thumbprint: boundTo(t)}, time.Now())
	if errors.Is(err, dpop.ErrNonce) {
		return refuse("use_dpop_nonce")
	}
	if err != nil || p.Remember(s.replay, time.Now()) != nil {
		return refuse("invalid_dpop_proof")
	}
	return http.StatusOK, resourceNonce
}

// boundTo is the thumbprint of the ticket's holder, read unverified, or
// "".
func boundTo(t *token.Ticket) string {
	sc, err := t.UnverifiedScope()
	if err != nil || sc.Holder() == nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(sc.Holder())
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
