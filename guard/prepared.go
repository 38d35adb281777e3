package guard

import (
	"context"
	"errors"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/verify"
)

// VerifyPrepared is [Guard.Verify] for a ticket whose own checks (key,
// chain, narrowing) ran once, in [verify.Prepare] with the guard's
// Config.Keys and Config.Options: for a harness that presents one ticket on
// many calls. Revocation, the policy, the caveats against req and now, the
// DPoP proof, the store's admission and the receipt are each call's, as in
// Verify, and the decision is the one Verify would make.
func (g *Guard) VerifyPrepared(ctx context.Context, p *verify.Prepared, req *caveat.Request, now time.Time) (Decision, error) {
	if p == nil {
		return Decision{}, errors.New("guard: no prepared ticket")
	}
	vd, err := p.Verify(req, now)
	if err != nil {
		return Decision{}, err
	}
	return g.conclude(ctx, vd, p.Ticket(), req, now)
}
