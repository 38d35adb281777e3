package guard

import (
	"context"
	"errors"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/verify"
)

// CheckRequest names a refusal by the enforcement point itself: the call
// is well formed but cannot be checked as it stands (a relative path the
// server resolves where the verifier cannot see, a subject argument of the
// wrong type, a form of call the point does not support), and the reason
// says why, so that the caller can correct it.
const CheckRequest verify.Check = "request"

// RefusePrepared records a refusal the enforcement point made before the
// ticket's caveats could decide req: the decision is refused with one
// CheckRequest refusal, reason, and nothing is admitted. The ticket's own
// checks still run (without a store), so the receipt names the ticket and
// family as any other decision's does. With receipts configured, the
// receipt is durable when RefusePrepared returns; an error means it could
// not be written.
func (g *Guard) RefusePrepared(ctx context.Context, pt *PreparedTicket, req *caveat.Request, now time.Time, reason string) (Decision, error) {
	switch {
	case pt == nil || pt.p == nil:
		return Decision{}, errors.New("guard: no prepared ticket")
	case pt.g != g:
		return Decision{}, errors.New("guard: the ticket was prepared by another guard")
	case reason == "":
		return Decision{}, errors.New("guard: a refusal needs a reason")
	}
	vd, err := pt.p.Verify(req, now)
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Decision: vd}
	d.Allowed = false
	d.Refusals = []verify.Refusal{{Check: CheckRequest, Block: -1, Reason: reason}}
	if g.cfg.Receipts == nil {
		return d, nil
	}
	if err := g.record(receiptFor(&d.Decision, pt.p.Ticket(), req), now); err != nil {
		return Decision{}, err
	}
	return d, nil
}
