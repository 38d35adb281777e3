package guard

import (
	"context"
	"errors"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// PreparedTicket is a ticket whose own checks (key, chain, narrowing,
// rebinding) ran once, under one [Guard]'s keys and options, for a harness
// that presents the same ticket on many calls ([Guard.VerifyPrepared]).
// It is immutable and safe for concurrent use.
type PreparedTicket struct {
	g *Guard
	p *verify.Prepared
}

// PrepareTicket runs t's own checks once with the guard's Config.Keys and
// Config.Options ([verify.Prepare]). A ticket those checks refuse is still
// prepared: every call of it is refused alike. The error is for a nil or
// zero ticket only.
func (g *Guard) PrepareTicket(t *token.Ticket) (*PreparedTicket, error) {
	p, err := verify.Prepare(t, g.cfg.Keys, &g.cfg.Options)
	if err != nil {
		return nil, err
	}
	return &PreparedTicket{g: g, p: p}, nil
}

// WithHolderKey returns a copy of pt for a harness that holds the bound
// ticket's current holder key itself: its calls need no DPoP proof (see
// [verify.Prepared.WithHolderKey], which refuses any other key).
func (pt *PreparedTicket) WithHolderKey(h *key.Holder) (*PreparedTicket, error) {
	p, err := pt.p.WithHolderKey(h)
	if err != nil {
		return nil, err
	}
	return &PreparedTicket{g: pt.g, p: p}, nil
}

// Ticket returns the ticket pt was prepared from.
func (pt *PreparedTicket) Ticket() *token.Ticket { return pt.p.Ticket() }

// Validate checks the prepared ticket without a request at now, as
// [verify.Validate] does (nothing is admitted, nothing recorded).
func (pt *PreparedTicket) Validate(now time.Time) verify.Decision { return pt.p.Validate(now) }

// VerifyPrepared is [Guard.Verify] for a ticket this guard prepared
// ([Guard.PrepareTicket]). Revocation, the policy, the caveats against req
// and now, the DPoP proof, the store's admission and the receipt are each
// call's, as in Verify, and the decision is the one Verify would make. A
// ticket another guard prepared (under other keys or options, perhaps) is
// an error, never a decision.
func (g *Guard) VerifyPrepared(ctx context.Context, pt *PreparedTicket, req *caveat.Request, now time.Time) (Decision, error) {
	return g.VerifyPreparedNoted(ctx, pt, req, now, "")
}

// VerifyPreparedNoted is [Guard.VerifyPrepared] with the caller's own note
// added to the decision's receipt: its name for the call (a coding
// agent's tool-use id), by which the records a caller writes later about
// the same call are paired with this one.
func (g *Guard) VerifyPreparedNoted(ctx context.Context, pt *PreparedTicket, req *caveat.Request, now time.Time, note string) (Decision, error) {
	switch {
	case pt == nil || pt.p == nil:
		return Decision{}, errors.New("guard: no prepared ticket")
	case pt.g != g:
		return Decision{}, errors.New("guard: the ticket was prepared by another guard")
	}
	vd, err := pt.p.Verify(req, now)
	if err != nil {
		return Decision{}, err
	}
	return g.conclude(ctx, vd, pt.p.Ticket(), req, now, note)
}
