package verify

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
)

// Check names the step of verification that refused.
type Check string

const (
	CheckKey         Check = "key"         // no key for the ticket's key id, or the policy refuses it
	CheckMode        Check = "mode"        // the ticket's mode is not its key's
	CheckChain       Check = "chain"       // a tag, signature or seal does not verify
	CheckAttenuation Check = "attenuation" // a block is not at least as strict as the ones before it
	CheckRevoked     Check = "revoked"     // a block id, or a used discharge's id, is in the revoked set
	CheckPolicy      Check = "policy"      // the verifier's own policy refuses the ticket
	CheckCaveat      Check = "caveat"      // a caveat does not hold for the request
	CheckApproval    Check = "approval"    // an approval caveat lacks a valid discharge, or a discharge fails (step 6a)
	CheckDPoP        Check = "dpop"        // the holder's DPoP proof is missing, invalid or replayed
)

// Refusal is one reason a ticket was refused.
type Refusal struct {
	Check  Check
	Block  int         // the block concerned, or -1
	Kind   caveat.Kind // the caveat kind concerned, or 0
	Reason string      // for a person; never contains a key, tag or signature
}

// String renders the refusal as "block 2 caveat paths: src/refund/x is not
// under src/discount/" or "chain: hmac tag does not verify".
func (r Refusal) String() string {
	var b strings.Builder
	if r.Block >= 0 {
		b.WriteString("block ")
		b.WriteString(strconv.Itoa(r.Block))
		b.WriteByte(' ')
	}
	if r.Kind != 0 {
		if r.Check != CheckCaveat {
			b.WriteString(string(r.Check))
			b.WriteByte(' ')
		}
		b.WriteString("caveat ")
		b.WriteString(r.Kind.String())
	} else {
		b.WriteString(string(r.Check))
	}
	b.WriteString(": ")
	b.WriteString(r.Reason)
	return b.String()
}

// Budget is a calls or total caveat the caller's ledger must charge. Key is
// the id of the block that set it: every ticket that descends from that
// block shares the budget, so a delegation family cannot multiply it. A
// used discharge's budget has the discharge id (DID) as Key and the
// approval's block as Block: every request that carries the discharge
// shares it.
type Budget struct {
	Block int
	Kind  caveat.Kind // caveat.Calls or caveat.Total
	Key   token.BlockID
	Calls uint64        // the limit, for caveat.Calls
	Total caveat.Amount // the limit, for caveat.Total
}

// Decision is the outcome of [Verify].
type Decision struct {
	Allowed  bool
	Refusals []Refusal // empty if and only if Allowed

	// Set once the chain verified (even if a later check refused).
	FamilyID []byte          // block 0's ticket id
	BlockIDs []token.BlockID // one per block; the last is the ticket's id
	Budgets  []Budget        // to be charged by the caller before the call runs: the ticket's, then the used discharges'
	Intent   string          // block 0's intent, if any

	// Discharges are the discharges that passed step 6a, one per approval
	// caveat they discharge, blocks ascending. Each one's calls and total
	// caveats are in Budgets with the discharge id as Key and the
	// approval's block as Block.
	Discharges []UsedDischarge

	// Proof is the checked DPoP proof of a bound ticket's holder. The
	// caller must remember Proof.ReplayKey until Proof.RememberUntil and
	// refuse a second use (Guard does).
	Proof *dpop.Proof

	missing []Missing // the approvals refused for want of a discharge (MissingApproval)
	spare   spare     // storage VerifyText reuses
}

// TicketID returns the id of the ticket's last block, or the zero id if the
// chain did not verify.
func (d *Decision) TicketID() token.BlockID {
	if len(d.BlockIDs) == 0 {
		return token.BlockID{}
	}
	return d.BlockIDs[len(d.BlockIDs)-1]
}

// ErrRefused is wrapped by every error [Decision.Err] returns.
var ErrRefused = errors.New("verify: refused")

// RefusedError carries the refusals of a decision as an error.
type RefusedError struct{ Refusals []Refusal }

func (e *RefusedError) Error() string {
	parts := make([]string, len(e.Refusals))
	for i, r := range e.Refusals {
		parts[i] = r.String()
	}
	return "verify: refused: " + strings.Join(parts, "; ")
}

// Unwrap returns [ErrRefused].
func (e *RefusedError) Unwrap() error { return ErrRefused }

// Err returns nil if the decision allows, else a *[RefusedError].
func (d *Decision) Err() error {
	if d.Allowed {
		return nil
	}
	return &RefusedError{Refusals: d.Refusals}
}

func (d *Decision) refuse(c Check, block int, kind caveat.Kind, reason string) {
	d.Refusals = append(d.Refusals, Refusal{Check: c, Block: block, Kind: kind, Reason: reason})
}
