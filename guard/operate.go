package guard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// CheckOperation names a refusal because of the call's operation key: the
// key names another request, its first request is still running or its
// outcome is unknown, its first result was not kept, or the family holds
// too many keys. Nothing ran and nothing was charged; Decision.Claim says
// which.
const CheckOperation verify.Check = "operation"

// CallOptions are what a caller adds to one call besides the ticket and
// request.
type CallOptions struct {
	// Note is the caller's own name for the call, added to its receipt
	// (a coding agent's tool-use id), by which the records a caller writes
	// later about the same call are paired with this one.
	Note string
	// Operation is the caller's operation key (see [OperationStore]),
	// or empty: with one, a repeat of an operation that finished gets its
	// first result back (Decision.Replayed) instead of running again. The
	// guard's store must implement OperationStore.
	Operation string
}

// VerifyPreparedCall is [Guard.VerifyPrepared] with the call's options. A
// call under an operation key that the ticket allows is, by the key's
// claim in the store:
//   - new: admitted as any call; when the admission refuses, the key is
//     free again. The caller runs an admitted call, then records its
//     result with FinishOperation (or settles it with Release, which frees
//     the key).
//   - a repeat of an operation that finished with a kept result, under a
//     ticket none of whose blocks or discharges is revoked: Replayed, with
//     Result the first result and Request the first admission; nothing is
//     admitted or charged, and the receipt is one replayed record. The
//     caller answers with Result and runs nothing.
//   - anything else: refused with [CheckOperation] (Claim says why).
func (g *Guard) VerifyPreparedCall(ctx context.Context, pt *PreparedTicket, req *caveat.Request, now time.Time, o CallOptions) (Decision, error) {
	switch {
	case pt == nil || pt.p == nil:
		return Decision{}, errors.New("guard: no prepared ticket")
	case pt.g != g:
		return Decision{}, errors.New("guard: the ticket was prepared by another guard")
	}
	if err := g.checkOperation(o.Operation); err != nil {
		return Decision{}, err
	}
	vd, err := pt.p.Verify(req, now)
	if err != nil {
		return Decision{}, err
	}
	return g.concludeCall(ctx, vd, pt.p.Ticket(), req, now, o)
}

// VerifyCall is [Guard.Verify] with the call's options (see
// VerifyPreparedCall).
func (g *Guard) VerifyCall(ctx context.Context, t *token.Ticket, req *caveat.Request, now time.Time, o CallOptions) (Decision, error) {
	if err := g.checkOperation(o.Operation); err != nil {
		return Decision{}, err
	}
	vd, err := verify.Verify(t, req, g.cfg.Keys, now, &g.cfg.Options)
	if err != nil {
		return Decision{}, err
	}
	return g.concludeCall(ctx, vd, t, req, now, o)
}

func (g *Guard) checkOperation(key string) error {
	if key == "" {
		return nil
	}
	if err := ValidateOperationKey(key); err != nil {
		return err
	}
	if _, ok := g.cfg.Store.(OperationStore); !ok {
		return fmt.Errorf("guard: the store (%T) keeps no operation keys", g.cfg.Store)
	}
	return nil
}

func (g *Guard) concludeCall(ctx context.Context, vd verify.Decision, t *token.Ticket, req *caveat.Request, now time.Time, o CallOptions) (Decision, error) {
	if o.Operation != "" && !vd.Allowed && len(verify.MissingApproval(&vd)) > 0 && len(vd.BlockIDs) > 0 {
		g.noteWaiting(ctx, &vd, t, req, now, o.Operation)
	}
	if o.Operation != "" && !vd.Allowed {
		return g.conclude(ctx, vd, t, req, now, joinNote(o.Note, "operation "+o.Operation))
	}
	if o.Operation == "" {
		return g.conclude(ctx, vd, t, req, now, o.Note)
	}
	d := Decision{Decision: vd, Operation: o.Operation}
	ops := g.cfg.Store.(OperationStore)
	start := OperationStart{Family: d.family(), Key: o.Operation, Binding: OperationBinding(req), Request: NewRequestID(),
		Tool: req.Tool, Now: now, Expires: familyExpires(t)}
	if g.cfg.Hold > 0 {
		start.HoldUntil = now.Add(g.cfg.Hold)
	}
	claim, first, err := ops.StartOperation(ctx, start)
	d.Claim = claim
	switch {
	case err != nil:
		d.refuse(CheckStore, -1, 0, "the store failed, so the call is refused: "+err.Error())
		d.Operation = ""
		return g.finishConclude(ctx, &d, t, req, now, o.Note)
	case claim == ClaimNew:
		g.admitAs(ctx, &d, t, req, now, start.Request, true)
		if !d.Allowed {
			ops.DropOperation(ctx, d.family(), o.Operation, start.Request, OperationReleased)
			d.Operation = ""
		}
		return g.finishConclude(ctx, &d, t, req, now, joinNote(o.Note, "operation "+o.Operation))
	case claim == ClaimReplay:
		return g.replay(ctx, &d, t, req, now, first, o.Note)
	}
	d.Operation = ""
	d.refuse(CheckOperation, -1, 0, claimReason(claim, o.Operation, &first))
	return g.finishConclude(ctx, &d, t, req, now, o.Note)
}

// noteWaiting records a keyed call refused for want of an approval as
// waiting for it, where the key is free: listings show it, and the
// approved retry under the key runs. A failure only loses the listing.
func (g *Guard) noteWaiting(ctx context.Context, vd *verify.Decision, t *token.Ticket, req *caveat.Request, now time.Time, key string) {
	ops := g.cfg.Store.(OperationStore)
	st := OperationStart{Family: vd.BlockIDs[0], Key: key, Binding: OperationBinding(req), Request: NewRequestID(),
		Tool: req.Tool, Now: now, HoldUntil: now, Expires: familyExpires(t)}
	if c, _, err := ops.StartOperation(ctx, st); err == nil && c == ClaimNew {
		ops.DropOperation(ctx, st.Family, key, st.Request, OperationWaiting)
	}
}

// claimReason says why a claim refuses the call.
func claimReason(c Claim, key string, first *Operation) string {
	k := "operation key " + fmt.Sprintf("%q", key)
	switch c {
	case ClaimMismatch:
		return k + " was used for another request (another tool, subjects or arguments): a changed request needs a new key"
	case ClaimInFlight:
		return k + ": its first request (" + first.Request.String() + ") is still running; try again once it has finished"
	case ClaimUnknown:
		return k + ": its first request (" + first.Request.String() + ") started, but its outcome was never recorded; it may have run, so it is not run again"
	case ClaimNotKept:
		return k + ": its first request (" + first.Request.String() + ") ran, but its result was over the size limit and was not kept; it is not run again"
	case ClaimFull:
		return fmt.Sprintf("%s: the family already holds %d operation keys", k, MaxFamilyOperations)
	}
	return k + ": the store gave no claim"
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// replay answers a repeat with the first result, once an admission that
// charges nothing has checked that no block or discharge of the call is
// revoked and recorded its DPoP proof as used: a proof seen once gets no
// result, replayed or not.
func (g *Guard) replay(ctx context.Context, d *Decision, t *token.Ticket, req *caveat.Request, now time.Time, first Operation, note string) (Decision, error) {
	g.admitAs(ctx, d, t, req, now, NewRequestID(), false)
	d.Request = RequestID{}
	if !d.Allowed {
		d.Operation = ""
		return g.finishConclude(ctx, d, t, req, now, note)
	}
	d.Replayed, d.Result, d.Request = true, first.Result, first.Request
	if g.cfg.Receipts != nil {
		rec := receiptFor(&d.Decision, t, req)
		rec.Kind = chain.KindReplayed
		rec.Approvals = nil
		rec.Note = joinNote(note, "operation "+d.Operation+" replays request "+first.Request.String())
		if err := g.record(rec, now); err != nil {
			return Decision{}, err
		}
	}
	return *d, nil
}

// finishConclude writes the receipt of a decision concludeCall made (as
// conclude does).
func (g *Guard) finishConclude(ctx context.Context, d *Decision, t *token.Ticket, req *caveat.Request, now time.Time, note string) (Decision, error) {
	if g.cfg.Receipts == nil {
		return *d, nil
	}
	rec := receiptFor(&d.Decision, t, req)
	if d.Allowed {
		rec.Note = "request " + d.Request.String()
	}
	if note != "" {
		rec.Note = joinNote(rec.Note, note)
	}
	if err := g.record(rec, now); err != nil {
		if d.Allowed {
			if g.cfg.Hold > 0 {
				g.cfg.Store.Settle(ctx, d.family(), d.Request, Release, now)
			}
			g.cfg.Store.(OperationStore).DropOperation(ctx, d.family(), d.Operation, d.Request, OperationReleased)
		}
		return Decision{}, err
	}
	return *d, nil
}

// FinishOperation records the result of an allowed call under an
// operation key that ran (Decision.Operation set, not Replayed): a repeat
// of the key gets it back byte for byte, from this guard or any other on
// the store, until the family expires. It reports whether the result was
// kept: one over MaxOperationResult, or over what the family may still
// keep (MaxFamilyResults), is not, and a repeat is refused saying so. A
// nil result records the outcome alone (a repeat gets an empty result).
// A decision without an operation key is a no-op.
func (g *Guard) FinishOperation(ctx context.Context, d *Decision, result []byte, now time.Time) (bool, error) {
	if d == nil || d.Operation == "" || d.Replayed || !d.Allowed {
		return false, nil
	}
	ops, ok := g.cfg.Store.(OperationStore)
	if !ok {
		return false, errors.New("guard: the store keeps no operation keys")
	}
	kept, err := ops.FinishOperation(ctx, d.family(), d.Operation, d.Request, result, now)
	if err != nil {
		return false, fmt.Errorf("%w (finishing operation %q)", err, d.Operation)
	}
	return kept, nil
}
