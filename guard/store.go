package guard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Store holds what must outlive one verification: budget counters, used
// DPoP proofs, revoked blocks and the verdicts of recent admissions. A
// Store is safe for concurrent use, and several handles to one store (in
// one process or many) see one state.
//
// Every method may fail with an error matching [ErrStore]: the store could
// not complete the step (I/O, timeout, cancelled context, closed handle).
// The caller must treat any error, and any outcome it did not receive, as
// a refusal: stores fail closed, and a charge whose reply was lost is
// recovered by retrying Admit with the same request id, never by assuming
// it did not happen.
type Store interface {
	// Admit checks and records an admission in one atomic step: no block
	// of the chain is revoked, the replay key is not live, and every
	// budget has room for this call. Only if all hold does it record the
	// replay key and reserve the call on every budget; otherwise it
	// changes nothing but the verdict it keeps for the request id. An
	// Admit with a request id already seen returns the first verdict (with
	// Repeated set) and charges nothing again. A malformed admission fails
	// with an error matching ErrInvalid; a request id reused for different
	// content fails with ErrConflict.
	Admit(ctx context.Context, a Admission) (Verdict, error)

	// Settle ends the reservation an admitted request holds in family.
	// Capture makes it permanent. Release gives it back to every budget,
	// which is possible only while it is held and now is not after the
	// admission's HoldUntil; otherwise Release fails with ErrSettled and
	// the charge stays. Settling twice the same way does nothing. A request
	// id without a reservation (never admitted, refused, or forgotten after
	// RequestRetention) fails with ErrNoReservation.
	Settle(ctx context.Context, family token.BlockID, id RequestID, o Outcome, now time.Time) error

	// Revoke records that every block of r is revoked: from when Revoke
	// returns, no handle admits a chain of r.Family holding one of them.
	Revoke(ctx context.Context, r Revocation, now time.Time) error

	// Revoked returns the index in blocks of the first block revoked in
	// family, or -1 when none is.
	Revoked(ctx context.Context, family token.BlockID, blocks []token.BlockID) (int, error)

	// Spent reports each budget's use in family: its limit, what is spent
	// (reservations still held included) and what remains.
	Spent(ctx context.Context, family token.BlockID, budgets []verify.Budget) ([]Usage, error)

	// Close releases the handle. It never loses a recorded step: every
	// step was durable (as far as the store promises) when it returned.
	Close() error
}

// RequestID names one attempt to admit one call. The caller draws it at
// random (NewRequestID) before the first try and reuses it on every retry
// of that same call, so that a retry after a lost reply charges once. It
// must never be reused for another call. The zero id is refused.
type RequestID [16]byte

// NewRequestID returns a random request id from crypto/rand.
func NewRequestID() RequestID {
	var id RequestID
	rand.Read(id[:]) // never fails (crypto/rand panics rather)
	return id
}

// String returns id in lowercase hex.
func (id RequestID) String() string { return hex.EncodeToString(id[:]) }

// Admission is one call to admit.
type Admission struct {
	Request RequestID
	// Blocks holds the id of every block of the chain, block 0 first:
	// Blocks[0] is the family id every ticket of the delegation shares.
	// The admission is refused if any of them is revoked.
	Blocks []token.BlockID
	// Discharges holds the id (DID) of every discharge the decision used
	// (verify.Decision.Discharges), at most verify.MaxDischarges: the
	// admission is refused if one of them is revoked in the family, as a
	// block would be, and a discharge's budgets are keyed by it.
	Discharges []token.BlockID
	// Replay, when set, is the DPoP proof's key: refused while an earlier
	// admission of the family recorded it and now is not after its Until.
	Replay *ReplayEntry
	// Budgets are verify.Decision.Budgets: each Key must be the id of the
	// block (Blocks[Block]) that set it, or, for a discharge's budget, one
	// of Discharges.
	Budgets []verify.Budget
	// Cost is the call's cost, required by every total budget (a total
	// budget with no cost, or a cost in another currency, refuses).
	Cost *caveat.Amount
	// Now is the time of the admission, by the caller's clock.
	Now time.Time
	// Expires is the instant after which no ticket of the family can be
	// admitted: block 0's until plus the verifier's skew (every later
	// block narrows it). Counters are kept at least that long; zero means
	// for ever. It must not be the until of a later block: budgets set by
	// earlier blocks outlive it.
	Expires time.Time
	// HoldUntil ends the reservation's hold: until then Settle may
	// release it; after, it counts as captured. Zero (or not after Now)
	// captures at once.
	HoldUntil time.Time
}

// Family returns Blocks[0], or the zero id when there are no blocks.
func (a *Admission) Family() token.BlockID {
	if len(a.Blocks) == 0 {
		return token.BlockID{}
	}
	return a.Blocks[0]
}

// ReplayEntry is a DPoP proof's replay key and the last instant it could
// pass [dpop.Verify] (dpop.Proof.RememberUntil).
type ReplayEntry struct {
	Key   dpop.ReplayKey
	Until time.Time
}

// Reason is why an admission was refused.
type Reason uint8

const (
	Admitted  Reason = iota // not refused
	Revoked                 // a block of the chain or a used discharge is revoked (Verdict.Index: see Verdict)
	Replayed                // the DPoP proof's replay key is live
	Exhausted               // a budget has no room (Verdict.Index: the budget)
)

var reasonNames = [...]string{"admitted", "revoked", "replayed", "exhausted"}

// String returns "admitted", "revoked", "replayed" or "exhausted".
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}

// Verdict is the outcome of Admit. Of several reasons to refuse, the
// first in this order is given: a revoked block (the lowest index), a
// replayed proof, an exhausted budget (the lowest index).
type Verdict struct {
	Admitted bool
	Reason   Reason // Admitted if and only if Admitted is true
	// Index is the budget concerned (Exhausted), or, for Revoked, the
	// block (an index of Admission.Blocks) or, from len(Blocks) on, the
	// discharge (Admission.Discharges[Index-len(Blocks)]); else -1.
	Index    int
	Repeated bool // the verdict of an earlier Admit with the same request id
}

// Outcome says how Settle ends a reservation.
type Outcome uint8

const (
	Capture Outcome = iota + 1 // the call ran: the charge is permanent
	Release                    // the call did not run: give the charge back
)

// Revocation names blocks to revoke in one family.
type Revocation struct {
	Family token.BlockID // block 0's id; revoking it revokes every ticket of the family
	// Blocks are blocks of that family (Family itself may be one), or
	// discharge ids (DIDs) of discharges bound to a ticket of it.
	Blocks []token.BlockID
	// Expires is when the revocation may be forgotten: no earlier than
	// the family's Expires (see Admission). Zero keeps it for ever.
	Expires time.Time
}

// HeldReporter is a [Store] that can also say how much of what each budget
// has spent is still held at now: reserved by admitted calls that are
// neither captured nor released and whose hold has not ended (after it a
// reservation counts as captured). Spent minus Held is what is captured.
// The figure is read apart from Spent, not in one atomic step with it: it
// is for people looking ("tickettool spent", "receipt report"), never for
// admission. Every store of this module implements it; the conformance
// suite (guard/storetest) checks it.
type HeldReporter interface {
	Held(ctx context.Context, family token.BlockID, budgets []verify.Budget, now time.Time) ([]uint64, error)
}

// Usage is one budget's use. Limit, Spent and Remaining count calls for a
// calls budget and micros of Currency for a total budget.
type Usage struct {
	Kind      caveat.Kind
	Currency  string // a total budget's currency; empty for calls
	Limit     uint64
	Spent     uint64 // captured and held
	Remaining uint64 // Limit - Spent
}
