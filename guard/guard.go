package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// CheckStore names a refusal because the store failed: the call is refused
// (fail closed), and the reason says what failed.
const CheckStore verify.Check = "store"

// Config configures a [Guard]. Keys is required.
type Config struct {
	Keys    *token.Keyring
	Options verify.Options
	// Store keeps budgets, used DPoP proofs and revocations; nil means a
	// new MemoryStore, which lives as long as the Guard.
	Store Store
	// Receipts, when set, receives one record per decision and one per
	// settlement, each durable before the method returns; concurrent
	// calls share fsyncs (group commit).
	Receipts *chain.Log
	// Hold is how long an allowed call's reservation is held for Settle:
	// a caller that learns whether the call ran (the MCP guard) captures or
	// releases it; one that never settles has it captured when the hold
	// ends. Zero captures at admission, for a caller that never learns an
	// outcome (tickettool verify).
	Hold time.Duration
}

// Guard is the stateful adapter a harness calls before every tool call: it
// runs the pure [verify.Verify], then, for an allowed call, admits it in the
// store in one atomic step (no block revoked, the DPoP proof never used,
// room in every budget, the proof recorded and the budgets charged), and
// writes one receipt for every decision. It is safe for concurrent use,
// and every Guard on one store shares its budgets.
type Guard struct {
	cfg Config
}

// New returns a guard.
func New(cfg Config) (*Guard, error) {
	if cfg.Keys == nil {
		return nil, errors.New("guard: config needs a keyring")
	}
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore()
	}
	if cfg.Hold < 0 {
		return nil, errors.New("guard: hold must not be negative")
	}
	if cfg.Options.NoBlockIDs {
		// Without ids the store could look up no revocation and key no
		// budget: every revoked ticket would pass.
		return nil, errors.New("guard: options must not set NoBlockIDs: the guard needs block ids for revocations, budgets and receipts")
	}
	if cfg.Options.Skew > MaxSkew {
		return nil, fmt.Errorf("guard: skew %v is over %v: the store keeps a family's budgets and revocations only that long past its until", cfg.Options.Skew, MaxSkew)
	}
	return &Guard{cfg: cfg}, nil
}

// Decision is verify's decision on a call, and for an allowed call the
// admission that holds its reservation.
type Decision struct {
	verify.Decision
	// Request names the admission of an allowed call (zero otherwise):
	// pass the Decision to Settle. For a Replayed decision it is the
	// first admission's, whose result was replayed.
	Request RequestID
	// Operation is the call's operation key when the call runs under it
	// (VerifyPreparedCall): record its result with FinishOperation.
	Operation string
	// Replayed reports a repeat of an operation that finished: the
	// call must not run; Result is the first result to answer with.
	// Nothing was admitted or charged, and there is nothing to settle.
	Replayed bool
	Result   []byte
	// Claim is the store's claim of the operation key, when the call
	// had one and the ticket allowed it (see [Claim]).
	Claim Claim
}

// family returns the id of block 0, or the zero id when the chain did not
// verify.
func (d *Decision) family() token.BlockID {
	if len(d.BlockIDs) == 0 {
		return token.BlockID{}
	}
	return d.BlockIDs[0]
}

// Check decides whether t allows req at now. A call that verify allows is
// admitted in the store; a refusal there (a revoked block, a replayed
// proof, a spent budget) or a store that fails refuses it, and the refusal
// says which. With receipts configured, the decision's receipt is durable
// when Check returns.
//
// A non-nil error means the call must not run and was not recorded: the
// request was malformed (nil ticket, keyring or request), or the receipt
// could not be written (an admission is then released, when held).
func (g *Guard) Verify(ctx context.Context, t *token.Ticket, req *caveat.Request, now time.Time) (Decision, error) {
	vd, err := verify.Verify(t, req, g.cfg.Keys, now, &g.cfg.Options)
	if err != nil {
		return Decision{}, err
	}
	return g.conclude(ctx, vd, t, req, now, "")
}

// conclude admits a call verify allowed, and records the decision.
func (g *Guard) conclude(ctx context.Context, vd verify.Decision, t *token.Ticket, req *caveat.Request, now time.Time, note string) (Decision, error) {
	d := Decision{Decision: vd}
	if d.Allowed {
		g.admit(ctx, &d, t, req, now)
	}
	if g.cfg.Receipts == nil {
		return d, nil
	}
	rec := receiptFor(&d.Decision, t, req)
	if d.Allowed {
		rec.Note = "request " + d.Request.String()
	}
	if note != "" {
		rec.Note = strings.TrimPrefix(rec.Note+"; "+note, "; ")
	}
	if err := g.record(rec, now); err != nil {
		if d.Allowed && g.cfg.Hold > 0 {
			g.cfg.Store.Settle(ctx, d.family(), d.Request, Release, now)
		}
		return Decision{}, err
	}
	return d, nil
}

// admit admits an allowed decision in the store, or turns it into a
// refusal. An Admit that fails is tried once more with the same request
// id, so a lost reply charges once.
func (g *Guard) admit(ctx context.Context, d *Decision, t *token.Ticket, req *caveat.Request, now time.Time) {
	g.admitAs(ctx, d, t, req, now, NewRequestID(), true)
}

// admitAs is admit under the request id id; without charge, it checks
// and records only the revocations and the proof, charging no budget
// (a replayed operation's admission).
func (g *Guard) admitAs(ctx context.Context, d *Decision, t *token.Ticket, req *caveat.Request, now time.Time, id RequestID, charge bool) {
	a := Admission{
		Request: id, Blocks: d.BlockIDs, Now: now, Expires: familyExpires(t),
	}
	if charge {
		a.Budgets, a.Cost = d.Budgets, req.Cost
	}
	for _, u := range d.Discharges {
		a.Discharges = append(a.Discharges, u.ID)
	}
	if g.cfg.Hold > 0 && charge {
		a.HoldUntil = now.Add(g.cfg.Hold)
	}
	if d.Proof != nil {
		a.Replay = &ReplayEntry{Key: d.Proof.ReplayKey, Until: d.Proof.RememberUntil}
	}
	v, err := g.cfg.Store.Admit(ctx, a)
	if err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrConflict) && ctx.Err() == nil {
		v, err = g.cfg.Store.Admit(ctx, a)
	}
	switch {
	case err != nil:
		d.refuse(CheckStore, -1, 0, "the store failed, so the call is refused: "+err.Error())
	case v.Admitted:
		d.Request = a.Request
		return
	case v.Reason == Revoked && v.Index >= len(d.BlockIDs) && v.Index-len(d.BlockIDs) < len(d.Discharges):
		u := d.Discharges[v.Index-len(d.BlockIDs)]
		d.refuse(verify.CheckRevoked, u.Block, caveat.Approval, "discharge "+u.ID.String()+" is revoked")
	case v.Reason == Revoked:
		d.refuse(verify.CheckRevoked, v.Index, 0, fmt.Sprintf("block %d is revoked", v.Index))
	case v.Reason == Replayed:
		d.refuse(verify.CheckDPoP, lastHolderBlock(t), caveat.Holder, "proof replayed: its jti was already used for "+d.Proof.ReplayKey.URI)
	case v.Reason == Exhausted && v.Index >= 0 && v.Index < len(d.Budgets):
		b := d.Budgets[v.Index]
		msg := fmt.Sprintf("budget of %d calls is spent", b.Calls)
		if b.Kind == caveat.Total {
			msg = "total budget of " + b.Total.String() + " would be exceeded"
		}
		check := verify.CheckCaveat
		if b.Key != d.BlockIDs[b.Block] { // a discharge's budget, keyed by its id
			check, msg = verify.CheckApproval, "discharge: "+msg
		}
		d.refuse(check, b.Block, b.Kind, msg)
	default:
		d.refuse(CheckStore, -1, 0, "the store gave no reason for refusing the call")
	}
}

func (d *Decision) refuse(c verify.Check, block int, kind caveat.Kind, reason string) {
	d.Allowed = false
	d.Refusals = append(d.Refusals, verify.Refusal{Check: c, Block: block, Kind: kind, Reason: reason})
}

// familyExpires is block 0's until plus MaxSkew, when block 0 has one:
// after it no guard, whatever its skew (at most MaxSkew), admits a ticket of
// the family (every later block narrows the until), so the family's
// counters and revocations may be forgotten. It is the same for every guard
// on a store: a guard with a larger skew than another's must not find a
// budget the other's expiry let the store forget.
func familyExpires(t *token.Ticket) time.Time {
	const skew = MaxSkew
	blocks := t.UnverifiedBlocks()
	if len(blocks) == 0 {
		return time.Time{}
	}
	for _, c := range blocks[0].Caveats {
		if c.Kind == caveat.Until {
			return time.Unix(c.Time, 0).Add(skew)
		}
	}
	return time.Time{}
}

// Settle ends the reservation of an allowed decision: Capture when the call
// ran, [Release] when it did not (possible only while the hold lasts). With
// receipts configured it writes one record of the settlement. An error of
// the store leaves the reservation to end with its hold, captured.
func (g *Guard) Settle(ctx context.Context, d *Decision, o Outcome, now time.Time) error {
	if d == nil || d.Request == (RequestID{}) || d.Replayed {
		return errors.New("guard: settle needs an allowed decision that ran (a replayed one holds nothing)")
	}
	// A capture of a captured reservation (its hold ended) does nothing; a
	// capture of a released one fails with ErrSettled and writes no
	// receipt, which would claim the call was charged.
	if err := g.cfg.Store.Settle(ctx, d.family(), d.Request, o, now); err != nil {
		return fmt.Errorf("%w (settling the call)", err) // stores prefix their errors
	}
	if o == Release && d.Operation != "" {
		// The call did not run: its key is free again, so a retry runs.
		if ops, ok := g.cfg.Store.(OperationStore); ok {
			ops.DropOperation(ctx, d.family(), d.Operation, d.Request, OperationReleased)
		}
	}
	kind := chain.KindCaptured
	if o == Release {
		kind = chain.KindReleased
	}
	// The same ticket, family and block as the allowed record it settles
	// (chain/FORMAT.md §1.2): an absent block would read as block 0.
	id := d.TicketID()
	return g.record(chain.Record{Kind: kind, TicketID: id[:], FamilyID: d.FamilyID,
		Block: len(d.BlockIDs) - 1, Note: "request " + d.Request.String()}, now)
}

// Revoke revokes the last block of t (and so t and every ticket attenuated
// from it) in the store: from when it returns, no guard on the store
// allows a call of it. t must verify under the guard's keys.
func (g *Guard) Revoke(ctx context.Context, t *token.Ticket, now time.Time) error {
	d, err := verify.Validate(t, g.cfg.Keys, now, &g.cfg.Options)
	if err != nil {
		return err
	}
	if len(d.BlockIDs) == 0 {
		return fmt.Errorf("%w (nothing revoked: the ticket does not verify)", d.Err())
	}
	r := Revocation{Family: d.BlockIDs[0], Blocks: d.BlockIDs[len(d.BlockIDs)-1:], Expires: familyExpires(t)}
	return g.cfg.Store.Revoke(ctx, r, now)
}

// RevokeDischarge revokes the discharge x of one of t's approvals in the
// store: from when it returns, no guard on the store allows a call that
// presents it (spec/FORMAT.md §7 step 6a, sub-step 6). t must verify under
// the guard's keys, and x must be bound to one of its approval caveats
// (its family is t's; a discharge for no approval of t is an error).
func (g *Guard) RevokeDischarge(ctx context.Context, t *token.Ticket, x *token.Discharge, now time.Time) error {
	if x == nil {
		return errors.New("guard: no discharge")
	}
	d, err := verify.Validate(t, g.cfg.Keys, now, &g.cfg.Options)
	if err != nil {
		return err
	}
	if len(d.BlockIDs) == 0 {
		return fmt.Errorf("%w (nothing revoked: the ticket does not verify)", d.Err())
	}
	bound := false
	for j := range d.BlockIDs {
		if b, err := t.Binding(j); err == nil && b == x.UnverifiedBinding() {
			bound = true
		}
	}
	if !bound {
		return errors.New("guard: the discharge is bound to no approval of the ticket")
	}
	r := Revocation{Family: d.BlockIDs[0], Blocks: []token.BlockID{x.ID()}, Expires: familyExpires(t)}
	return g.cfg.Store.Revoke(ctx, r, now)
}

// lastHolderBlock is the block of t's last holder caveat, which a dpop
// refusal names (spec/FORMAT.md §7 step 7); t's chain has verified.
func lastHolderBlock(t *token.Ticket) int {
	bs := t.UnverifiedBlocks()
	for i := len(bs) - 1; i >= 0; i-- {
		for _, c := range bs[i].Caveats {
			if c.Kind == caveat.Holder {
				return i
			}
		}
	}
	return -1
}
