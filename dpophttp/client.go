package dpophttp

// The client side: [Transport] is an http.RoundTripper that presents a
// ticket to the origins its caveats allow. Each request gets
// "Authorization: DPoP <ticket>" and a fresh proof (RFC 9449 §4.2, §7.1):
// htm the method, htu the request URL normalised without query and
// fragment, ath the SHA-256 of the ticket text as sent, iat now, a random
// jti, and the last nonce the origin gave (§8). It learns DPoP-Nonce per
// origin from every response, and answers a use_dpop_nonce challenge by
// sending the request once more with the new nonce, only when the body
// can be sent again (Request.GetBody, or no body). The ticket never goes
// to an origin that its hosts or aud caveats exclude, nor to any origin
// after a redirect has left the first one. The ticket can be replaced
// while requests are in flight ([Transport.Replace]).

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// ClientOptions tune a [Transport]. The zero value is usable.
type ClientOptions struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Audience returns the name the server at origin (scheme://host[:port])
	// checks aud caveats against; nil means the origin's host name, the
	// server side's default (Options.Audience). A ticket whose aud caveats
	// do not list that name is not sent there.
	Audience func(origin string) string
	// Now returns the time a proof is issued at; nil means time.Now.
	Now func() time.Time
}

// Transport presents a ticket with each request (see the doc paragraph
// at the top of this file). It is safe for concurrent use.
type Transport struct {
	opts  ClientOptions
	creds atomic.Pointer[clientCreds]

	mu      sync.Mutex
	origins map[string]originState
}

// clientCreds are a ticket and the key that presents it, replaced as one.
type clientCreds struct {
	text   string
	ticket *token.Ticket
	holder *key.Holder // nil: an unbound ticket, sent as a Bearer token
}

// originState is what the Transport learnt of one origin.
type originState struct {
	nonce   string // the last DPoP-Nonce it sent
	ed25519 bool   // its challenge lists Ed25519 and not EdDSA
}

// Errors of the client side; each wraps (errors.Is) one of these.
var (
	// ErrNotForOrigin: the ticket's hosts or aud caveats exclude the
	// request's origin, or a redirect left the first origin; nothing was
	// sent.
	ErrNotForOrigin = errors.New("dpophttp: the ticket is not for this origin")
	// ErrHolderKey: the ticket is bound and the key is missing or is not
	// the holder's.
	ErrHolderKey = errors.New("dpophttp: the ticket needs its holder's key")
)

// NewTransport returns a Transport presenting t, with a proof signed by
// holder. A bound ticket needs its current holder's key (the last holder
// caveat's thumbprint); an unbound ticket without a key is sent as
// "Authorization: Bearer" (RFC 6750 §2.1), which a server accepts only
// when its policy allows unbound tickets.
func NewTransport(t *token.Ticket, holder *key.Holder, opts ClientOptions) (*Transport, error) {
	tr := &Transport{opts: opts, origins: map[string]originState{}}
	if err := tr.Replace(t, holder); err != nil {
		return nil, err
	}
	return tr, nil
}

// Replace makes t and holder the credentials of every request that
// starts after it returns (a rotated ticket, as 'tickettool mcp
// --ticket-file' re-reads one); requests in flight keep the ones they
// started with, for their retry too. On error nothing changes.
func (tr *Transport) Replace(t *token.Ticket, holder *key.Holder) error {
	c, err := newClientCreds(t, holder)
	if err != nil {
		return err
	}
	tr.creds.Store(c)
	return nil
}

func newClientCreds(t *token.Ticket, holder *key.Holder) (*clientCreds, error) {
	if t == nil {
		return nil, errors.New("dpophttp: no ticket")
	}
	scope, err := t.UnverifiedScope()
	if err != nil {
		return nil, errors.New("dpophttp: the ticket widens its scope, so every verifier refuses it")
	}
	if jkt := scope.Holder(); jkt != nil {
		switch {
		case holder == nil || holder.Alg() == 0:
			return nil, ErrHolderKey
		case holder.Thumbprint() != encodeJKT(jkt):
			return nil, fmt.Errorf("%w: the key %s is not the ticket's holder %s", ErrHolderKey, holder.Thumbprint(), encodeJKT(jkt))
		}
	}
	if holder != nil && holder.Alg() == 0 {
		holder = nil
	}
	return &clientCreds{text: t.String(), ticket: t, holder: holder}, nil
}

// RoundTrip sends req with the ticket and a proof, and sends it once
// more when the origin answers use_dpop_nonce (or refuses the proof's
// alg name while listing the other one for its key) and the body can be
// sent again. It refuses, sending nothing, a request to an origin the
// ticket excludes. req is not modified.
func (tr *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := tr.creds.Load()
	origin, err := originOf(req.URL)
	if err != nil {
		return nil, closeBody(req, err)
	}
	if err := redirectedAway(req, origin); err != nil {
		return nil, closeBody(req, err)
	}
	if err := c.admits(req.URL, tr.audience(origin)); err != nil {
		return nil, closeBody(req, err)
	}
	out, sent, err := tr.prepare(req, req.Body, c, origin)
	if err != nil {
		return nil, closeBody(req, err)
	}
	resp, err := tr.base().RoundTrip(out)
	if err != nil {
		return nil, err
	}
	if !tr.learn(origin, resp, c, sent) || !canResend(req) {
		return resp, nil
	}
	body, err := resendBody(req)
	if err != nil {
		return resp, nil // the first answer stands
	}
	drain(resp.Body)
	again, sent, err := tr.prepare(req, body, c, origin)
	if err != nil {
		if body != nil {
			_ = body.Close()
		}
		return nil, err
	}
	resp, err = tr.base().RoundTrip(again)
	if err != nil {
		return nil, err
	}
	tr.learn(origin, resp, c, sent)
	return resp, nil
}

// prepare returns a copy of req with the credentials and a fresh proof,
// and the origin state the proof was made with.
func (tr *Transport) prepare(req *http.Request, body io.ReadCloser, c *clientCreds, origin string) (*http.Request, originState, error) {
	out := req.Clone(req.Context())
	out.Body = body
	out.Header.Del("Authorization")
	out.Header.Del("DPoP")
	st := tr.state(origin)
	if c.holder == nil {
		out.Header.Set("Authorization", "Bearer "+c.text)
		return out, st, nil
	}
	opts := dpop.MakeOptions{AccessToken: c.text, IssuedAt: tr.now(), Nonce: st.nonce}
	if st.ed25519 && c.holder.Alg() == key.Ed25519 {
		opts.Algorithm = dpop.Ed25519
	}
	htu, err := dpop.NormalizeURI(requestURI(req.URL))
	if err != nil {
		return nil, st, errors.New("dpophttp: the request url has no htu form: " + err.Error())
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet // as net/http sends it
	}
	proof, err := dpop.Make(c.holder, method, htu, opts)
	if err != nil {
		return nil, st, err
	}
	out.Header.Set("Authorization", "DPoP "+c.text)
	out.Header.Set("DPoP", proof)
	return out, st, nil
}

// learn records the response's DPoP-Nonce and DPoP challenge for origin,
// and reports whether the request, whose proof was made with sent,
// should be sent once more: a 401 whose DPoP challenge asks for a nonce
// it now has another of, or refuses the proof naming algs that list
// Ed25519 and not EdDSA when the proof said EdDSA.
func (tr *Transport) learn(origin string, resp *http.Response, c *clientCreds, sent originState) bool {
	nonce := resp.Header.Get("DPoP-Nonce")
	if !validNonce(nonce) {
		nonce = ""
	}
	ch, isDPoP := dpopChallenge(resp.Header)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	st, known := tr.origins[origin]
	before := st
	if nonce != "" {
		st.nonce = nonce
	}
	if isDPoP && ch.Params["algs"] != "" {
		algs := strings.Fields(ch.Params["algs"])
		st.ed25519 = slices.Contains(algs, string(dpop.Ed25519)) && !slices.Contains(algs, "EdDSA")
	}
	if st != before {
		if !known && len(tr.origins) >= MaxClientOrigins {
			for o := range tr.origins {
				delete(tr.origins, o)
				break
			}
		}
		tr.origins[origin] = st
	}
	if resp.StatusCode != http.StatusUnauthorized || !isDPoP || c.holder == nil {
		return false
	}
	switch ch.Params["error"] {
	case "use_dpop_nonce":
		return nonce != "" && nonce != sent.nonce
	case "invalid_dpop_proof":
		return st.ed25519 && !sent.ed25519 && c.holder.Alg() == key.Ed25519
	}
	return false
}

func (tr *Transport) state(origin string) originState {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.origins[origin]
}

func (tr *Transport) base() http.RoundTripper {
	if tr.opts.Base != nil {
		return tr.opts.Base
	}
	return http.DefaultTransport
}

func (tr *Transport) now() time.Time {
	if tr.opts.Now != nil {
		return tr.opts.Now()
	}
	return time.Now()
}

func (tr *Transport) audience(origin string) string {
	if tr.opts.Audience != nil {
		return tr.opts.Audience(origin)
	}
	u, _ := url.Parse(origin)
	return strings.ToLower(u.Hostname())
}

// canResend reports whether req's body can be sent a second time.
func canResend(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

func resendBody(req *http.Request) (io.ReadCloser, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req.Body, nil
	}
	return req.GetBody()
}

// drain reads a little of a body and closes it, so that its connection
// can carry the retry.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrainBytes))
	_ = body.Close()
}

// closeBody closes req's body, as a RoundTripper must even when it
// sends nothing, and returns err.
func closeBody(req *http.Request, err error) error {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return err
}
