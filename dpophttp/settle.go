package dpophttp

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Decision is what the handler of an allowed request learns of it
// ([FromContext]).
type Decision struct {
	Allowed  bool            // always true for a request that reached the handler
	FamilyID []byte          // block 0's ticket id: the family's budgets and revocations
	BlockIDs []token.BlockID // one per block; the last is the ticket's id
	Budgets  []verify.Budget // the calls and total budgets the request is charged against
	Holder   string          // the RFC 7638 thumbprint of the proof's key; "" for a Bearer ticket
	Intent   string          // block 0's intent, if any
	// Request is what the ticket was checked against (the mapping's).
	Request *caveat.Request
}

type stateKey struct{}

// state is an allowed request's admission, settled when its handler
// returns.
type state struct {
	m        *Middleware
	d        guard.Decision
	req      *caveat.Request
	holder   string
	released atomic.Bool
}

// FromContext returns the decision of the request whose context ctx is
// (or derives from), as the middleware passed it to the handler.
func FromContext(ctx context.Context) (Decision, bool) {
	st, ok := ctx.Value(stateKey{}).(*state)
	if !ok {
		return Decision{}, false
	}
	return Decision{Allowed: st.d.Allowed, FamilyID: st.d.FamilyID, BlockIDs: st.d.BlockIDs, Budgets: st.d.Budgets,
		Holder: st.holder, Intent: st.d.Intent, Request: st.req}, true
}

// Release says that the request whose context ctx is had no effect (the
// handler did nothing it should be charged for): its reservation is
// released when the handler returns, instead of captured. It reports
// whether ctx carries an allowed request. A handler that panics after
// Release is captured all the same.
func Release(ctx context.Context) bool {
	st, ok := ctx.Value(stateKey{}).(*state)
	if ok {
		st.released.Store(true)
	}
	return ok
}

// settle captures the reservation of a request whose handler returned
// (whatever it wrote) or panicked, or releases it when the handler said
// nothing happened. A settlement that fails leaves the reservation to
// be captured when its hold ends.
func (m *Middleware) settle(st *state, panicked bool) {
	o := guard.Capture
	if st.released.Load() && !panicked {
		o = guard.Release
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.opt.StoreTimeout)
	defer cancel()
	if err := m.guard.Settle(ctx, &st.d, o, m.opt.Now()); err != nil {
		m.logLine("settle", "request "+st.d.Request.String()+": "+err.Error())
	}
}

// serve runs next for an allowed request and settles it, a panic too.
func (m *Middleware) serve(next http.Handler, w http.ResponseWriter, r *http.Request, st *state) {
	panicked := true
	var rec *recorder
	if st.d.Operation != "" {
		rec = &recorder{ResponseWriter: w}
		w = rec
	}
	defer func() {
		// A keyed request's response is kept before the client gets it
		// and before the settlement; one whose handler panicked keeps
		// none: its outcome is unknown.
		if rec != nil && !panicked {
			if !st.released.Load() {
				m.finishOperation(st, rec)
			}
			rec.send()
		}
		m.settle(st, panicked)
	}()
	next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
	panicked = false
}
