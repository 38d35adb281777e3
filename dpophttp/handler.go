package dpophttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Handler returns next behind the middleware: a request reaches next only
// when its ticket allows it, its budgets are reserved and its decision is
// recorded. The reservation is settled when next returns (see [Release]).
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := m.opt.Now()
		st, e := m.decide(w, r, now)
		switch {
		case e != nil:
			m.refuse(w, r, e)
		case st.d.Replayed:
			writeReplay(w, st.d.Result)
		default:
			m.serve(next, w, r, st)
		}
	})
}

// decide checks r; an allowed request returns its state, with the budgets
// reserved and the nonce header set.
func (m *Middleware) decide(w http.ResponseWriter, r *http.Request, now time.Time) (*state, *Error) {
	c, e := m.readCredentials(r)
	if e != nil && e.Code == "" {
		return nil, e // no credentials at all: nothing to decide or record
	}
	if e != nil {
		return nil, m.early(r, nil, e, now)
	}
	p, err := m.prepare(c.ticket)
	if err != nil {
		return nil, m.early(r, nil, &Error{Status: http.StatusUnauthorized, Code: CodeInvalidToken, Description: "the ticket is malformed"}, now)
	}
	t := p.t
	if e := m.checkScheme(c, p.bound); e != nil {
		return nil, m.early(r, t, e, now)
	}
	nonce, e := m.checkNonce(w, c, now)
	if e != nil {
		return nil, e // a protocol step, not a decision: nothing recorded
	}
	htu, e := m.publicURL(r)
	if e != nil {
		return nil, m.early(r, t, e, now)
	}
	body, e := m.readBody(w, r)
	if e != nil {
		return nil, m.early(r, t, e, now)
	}
	mapf := m.opt.Map
	if mapf == nil {
		mapf = m.DefaultMap
	}
	req, err := mapf(r, body)
	if err != nil || req == nil {
		why := "the request cannot be mapped"
		if err != nil {
			why = err.Error()
		}
		return nil, m.early(r, t, malformed(why), now)
	}
	key, e := idempotencyKey(r)
	if e != nil {
		return nil, m.early(r, t, e, now)
	}
	req.Discharges = c.discharges
	if c.scheme == SchemeDPoP {
		req.Holder = &caveat.HolderProof{Proof: c.proof, Method: r.Method, URI: htu, Nonce: nonce}
	}
	ctx, cancel := context.WithTimeout(r.Context(), m.opt.StoreTimeout)
	defer cancel()
	d, err := m.guard.VerifyPreparedCall(ctx, p.pt, req, now, guard.CallOptions{Operation: key})
	if err != nil {
		var de *verify.DischargeError
		if errors.As(err, &de) || errors.Is(err, token.ErrMalformed) {
			return nil, m.early(r, t, malformed("a discharge is malformed: "+strings.TrimPrefix(err.Error(), "verify: ")), now)
		}
		m.logf(r, "error", "the decision could not be recorded")
		return nil, &Error{Status: http.StatusInternalServerError, Code: CodeServerError,
			Description: "the decision could not be recorded, so the request is refused"}
	}
	if d.Replayed {
		m.logDecision(r, req, "replayed", "operation "+key+" replays request "+d.Request.String())
		return &state{m: m, d: d, req: req}, nil
	}
	if !d.Allowed && len(d.Refusals) == 1 && d.Refusals[0].Check == guard.CheckOperation {
		e := operationError(&d)
		m.logDecision(r, req, "refused", e.Description)
		return nil, e
	}
	if !d.Allowed {
		e := refusalError(&d)
		m.logDecision(r, req, "refused", e.Description)
		return nil, e
	}
	m.logDecision(r, req, "allowed", "")
	st := &state{m: m, d: d, req: req}
	if d.Proof != nil {
		st.holder = d.Proof.Thumbprint
	}
	return st, nil
}

// checkScheme refuses a ticket presented under the wrong scheme: a bound
// one under Bearer (RFC 9449 §7.2), an unbound one under DPoP or where
// Bearer is not accepted, and a DPoP ticket without a proof.
func (m *Middleware) checkScheme(c *credentials, bound bool) *Error {
	switch {
	case c.scheme == SchemeBearer && bound:
		return invalidToken("the ticket is bound to a holder key: send it with the DPoP scheme and a proof (RFC 9449 §7.2)")
	case c.scheme == SchemeBearer && !m.opt.AllowBearer:
		return invalidToken("this server accepts only tickets bound to a holder key, with the DPoP scheme")
	case c.scheme == SchemeDPoP && !bound:
		return invalidToken("the ticket is bound to no holder key: the DPoP scheme needs a bound ticket")
	case c.scheme == SchemeDPoP && c.proof == "":
		return &Error{Status: http.StatusUnauthorized, Code: CodeInvalidProof, Description: "no DPoP proof: send one DPoP header"}
	}
	return nil
}

// checkNonce returns the nonce of a DPoP proof when it is one this server
// issued in the current or the previous window, and sets a fresh one in
// the response when the proof's is not the current window's; a proof
// without an acceptable nonce gets use_dpop_nonce (RFC 9449 §9).
func (m *Middleware) checkNonce(w http.ResponseWriter, c *credentials, now time.Time) (string, *Error) {
	if c.scheme != SchemeDPoP || m.nonce == nil {
		return "", nil
	}
	nonce := unverifiedNonce(c.proof)
	valid, fresh := m.nonce.check(nonce, now)
	if !valid || !fresh {
		w.Header().Set(NonceHeader, m.nonce.current(now))
	}
	if !valid {
		return "", &Error{Status: http.StatusUnauthorized, Code: CodeUseNonce,
			Description: "the DPoP proof must carry the nonce in the DPoP-Nonce header"}
	}
	return nonce, nil
}

func invalidToken(why string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeInvalidToken, Description: why}
}

// isBound reports whether any block of t (unverified: the guard verifies
// it next, and a proof is then required all the same) names a holder.
func isBound(t *token.Ticket) bool {
	for _, b := range t.UnverifiedBlocks() {
		for _, c := range b.Caveats {
			if c.Kind == caveat.Holder {
				return true
			}
		}
	}
	return false
}

// refuse answers a refused request through the error handler.
func (m *Middleware) refuse(w http.ResponseWriter, r *http.Request, e *Error) {
	e.Algs, e.Bearer, e.ResourceMetadata = m.algs, m.opt.AllowBearer, m.opt.ResourceMetadata
	m.opt.ErrorHandler(w, r, e)
}
