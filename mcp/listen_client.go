package mcp

import (
	"context"

	"errors"
	"github.com/go-jose/go-jose/v4"
	"net/http"
	"sync"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

// errNoOwnTicket is the error of serving a proxy with client tickets
// otherwise than through its listener.
var errNoOwnTicket = errors.New("mcp: the proxy has no ticket of its own (Config.ClientTickets): it serves only clients that present theirs, through ListenHandler")

// clientEntry is one client ticket the listener serves: the proxy that
// enforces it, and how many relays run under it.
type clientEntry struct {
	p         *Proxy
	stateless *lane
	lanes     int
}

// forClient returns a proxy enforcing a client's ticket t: p's
// configuration, guard, store and receipts, with t checked as New checks
// a ticket, except that a bound ticket's possession is each request's
// proof instead of a key the proxy holds.
func (p *Proxy) forClient(t *token.Ticket) (*Proxy, error) {
	c := &Proxy{cfg: p.cfg, log: p.log, guard: p.guard, client: true, proofs: &sync.Map{}}
	st, err := c.newState(t)
	if err != nil {
		return nil, err
	}
	c.ticket.Store(st)
	return c, nil
}

// clientProxy returns the proxy of the ticket a request presents, made
// on first use; a refusal for a ticket that can never allow a call here,
// or when the listener serves maxClientTickets already.
func (l *listener) clientProxy(t *token.Ticket) (*clientEntry, *dpophttp.Error) {
	text := t.String()
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.clients[text]; e != nil {
		return e, nil
	}
	if len(l.clients) >= maxClientTickets {
		for k, e := range l.clients {
			if e.lanes == 0 {
				delete(l.clients, k)
			}
		}
	}
	if len(l.clients) >= maxClientTickets {
		return nil, &dpophttp.Error{Status: http.StatusServiceUnavailable, Code: dpophttp.CodeServerError,
			Description: "the guard serves as many client tickets as it can: try again once a session ended"}
	}
	cp, err := l.p.forClient(t)
	if err != nil {
		return nil, &dpophttp.Error{Status: http.StatusUnauthorized, Code: dpophttp.CodeInvalidToken,
			Description: "the ticket can never allow a call here: " + trimPrefix(err.Error())}
	}
	e := &clientEntry{p: cp}
	l.clients[text] = e
	return e, nil
}

func trimPrefix(s string) string {
	const pre = "mcp: "
	if len(s) >= len(pre) && s[:len(pre)] == pre {
		return s[len(pre):]
	}
	return s
}

// authenticate checks a request that carries no tools/call under a
// client's ticket: the ticket valid now (expiry, policy), none of its
// blocks revoked, and for a bound ticket the request's proof (signature,
// window, method, URL, nonce, ath, the holder's key) recorded in the
// store, which refuses it if its jti was used before. Nothing is charged
// and no receipt written: as over stdio, only tools/call is a decision.
func (p *Proxy) authenticate(ctx context.Context, h *caveat.HolderProof, now time.Time) *dpophttp.Error {
	st := p.state()
	d := st.prepared.Validate(now)
	if len(d.Refusals) > 0 {
		return invalidClient(dpophttp.CodeInvalidToken, refusalText(d.Refusals))
	}
	a := guard.Admission{Request: guard.NewRequestID(), Blocks: d.BlockIDs, Now: now}
	if st.bound {
		if h == nil {
			return invalidClient(dpophttp.CodeInvalidProof, "the ticket is bound to a holder key: a DPoP proof by that key is required")
		}
		o := p.cfg.Options.DPoP
		var algs []jose.SignatureAlgorithm
		for _, al := range o.Algorithms {
			algs = append(algs, jose.SignatureAlgorithm(al))
		}
		proof, err := dpop.Verify(h.Proof, dpop.Expectations{Method: h.Method, URI: h.URI, Nonce: h.Nonce,
			AccessToken: st.ticket.String(), Thumbprint: st.jkt, Algorithms: algs, MaxAge: o.MaxAge, FutureSkew: o.FutureSkew}, now)
		if err != nil {
			return invalidClient(dpophttp.CodeInvalidProof, err.Error())
		}
		a.Replay = &guard.ReplayEntry{Key: proof.ReplayKey, Until: proof.RememberUntil}
	}
	ctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	v, err := p.cfg.Store.Admit(ctx, a)
	switch {
	case err != nil:
		return &dpophttp.Error{Status: http.StatusServiceUnavailable, Code: dpophttp.CodeServerError,
			Description: "the store failed, so the request is refused"}
	case v.Admitted:
		return nil
	case v.Reason == guard.Replayed:
		return invalidClient(dpophttp.CodeInvalidProof, "proof replayed: its jti was already used")
	case v.Reason == guard.Revoked:
		return invalidClient(dpophttp.CodeInvalidToken, "the ticket is revoked")
	}
	return invalidClient(dpophttp.CodeInvalidToken, "the store refused the ticket")
}

func invalidClient(code, why string) *dpophttp.Error {
	return &dpophttp.Error{Status: http.StatusUnauthorized, Code: code, Description: why}
}
