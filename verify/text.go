package verify

import (
	"errors"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/lend"
	"github.com/tickettool/tickettool/token"
)

// VerifyText is [Verify] of a ticket's text form, for a verifier's hot
// path: it parses text as strictly as [token.Parse], but into pooled
// memory that it reads in place and clears before it returns, so that it
// builds no [token.Ticket], block or caveat value, and fills *d reusing
// the storage of the decision d held before. In steady state (a caller
// that keeps d across calls) it allocates nothing for a bearer ticket of
// up to eight blocks; DPoP proofs, refusals, Total budgets, approval
// caveats (one approver each) and discharges, and larger tickets still
// allocate. The decision is the one Verify makes of
// token.Parse(text).
//
// A caller that keeps d's BlockIDs, FamilyID or Budgets beyond the next
// call on d copies them first; a copy of d (d2 := *d) shares that
// storage, so it too is overwritten by the next call on either. An error is a text that does not parse
// (wrapping [token.ErrMalformed]) or a malformed call; *d then holds the
// zero decision.
func VerifyText(d *Decision, text string, req *caveat.Request, keys *token.Keyring, now time.Time, opts *Options) error {
	if d == nil {
		return errors.New("verify: no decision to fill")
	}
	intent := d.Intent
	d.reset()
	if req == nil {
		return errors.New("verify: no request")
	}
	v, err := lend.Parse(text)
	if err != nil {
		d.Budgets = nil // the zero decision
		return err
	}
	defer lend.Return(v)
	dis, err := decodeDischarges(req.Discharges)
	if err != nil {
		d.Budgets = nil
		return err
	}
	err = run(d, v.(*token.Ticket), req, dis, keys, now, opts)
	d.detach(intent)
	if err != nil {
		d.reset()
		return err
	}
	return nil
}

// spare is the storage of a Decision that VerifyText fills and reuses. It
// is never shared with a ticket, so that reusing it cannot change one.
type spare struct {
	ids     []token.BlockID
	family  []byte
	budgets []Budget
}

// reset makes d the zero decision, keeping its storage; Budgets is empty
// room to append to.
func (d *Decision) reset() {
	s := d.spare
	*d = Decision{Budgets: s.budgets[:0], spare: s}
}

// detach moves what d holds of a lent ticket (ids and family id in its
// storage, strings that are views of it) into d's own storage or into
// copies, before the loan ends. prevIntent is d's intent before the call,
// reused when the new one is the same, so that no copy is made.
func (d *Decision) detach(prevIntent string) {
	if d.BlockIDs != nil {
		d.spare.ids = append(d.spare.ids[:0], d.BlockIDs...)
		d.BlockIDs = d.spare.ids
	}
	if d.FamilyID != nil {
		d.spare.family = append(d.spare.family[:0], d.FamilyID...)
		d.FamilyID = d.spare.family
	}
	if d.Intent == prevIntent {
		d.Intent = prevIntent
	} else {
		d.Intent = strings.Clone(d.Intent)
	}
	for i := range d.Budgets {
		d.Budgets[i].Total.Currency = strings.Clone(d.Budgets[i].Total.Currency)
	}
	for i := range d.Refusals {
		d.Refusals[i].Reason = strings.Clone(d.Refusals[i].Reason)
	}
	for i := range d.missing { // the approval caveats' strings are views
		d.missing[i].KeyID = strings.Clone(d.missing[i].KeyID)
		d.missing[i].Location = strings.Clone(d.missing[i].Location)
		for _, ids := range [][]string{d.missing[i].Approved, d.missing[i].Waiting} {
			for k := range ids {
				ids[k] = strings.Clone(ids[k])
			}
		}
	}
	if cap(d.Budgets) > 0 {
		d.spare.budgets = d.Budgets[:0]
	}
	if len(d.Budgets) == 0 {
		d.Budgets = nil
	}
}
