package verify

import (
	"bytes"
	"strconv"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// checkApprovals is step 6a of spec/FORMAT.md §7: each approval caveat,
// blocks ascending, is matched to the discharges whose binding is its
// Bind_j, comparing bytes before any signature work; a lone match is
// checked (key id, signature, time, caveats, revocation); then every
// discharge that matched nothing is refused. holder is the ticket's
// current holder thumbprint, or nil. A ticket without approval caveats
// and a request without discharges cost one pass over the caveats and no
// allocation.
func (d *Decision) checkApprovals(t *token.Ticket, chain *token.Verified, holder []byte, dis []*token.Discharge, req *caveat.Request, now time.Time, opts *Options) {
	var matched [MaxDischarges]bool
	for j := range chain.Blocks {
		for _, c := range chain.Blocks[j].Caveats {
			if c.Kind != caveat.Approval {
				continue
			}
			bind, err := t.Binding(j)
			if err != nil { // cannot happen: block j carries an approval
				d.refuse(CheckApproval, j, caveat.Approval, "the approval's binding cannot be computed")
				continue
			}
			one, n := -1, 0
			for k, x := range dis {
				if x.UnverifiedBinding() == bind {
					matched[k], one, n = true, k, n+1
				}
			}
			switch n {
			case 0:
				d.refuseMissing(j, *c.Approver, bind)
			case 1:
				d.checkDischarge(j, *c.Approver, one, dis[one], holder, req, now, opts)
			default:
				d.refuse(CheckApproval, j, caveat.Approval, "more than one discharge for this approval")
			}
		}
	}
	for k := range dis {
		if !matched[k] {
			d.refuse(CheckApproval, -1, 0, "discharge "+strconv.Itoa(k)+" matches no approval of this ticket")
		}
	}
}

// refuseMissing refuses an approval caveat no discharge matched, with the
// reason spec/FORMAT.md §7 step 6a fixes byte for byte, and records it for
// [MissingApproval].
func (d *Decision) refuseMissing(j int, a caveat.Approver, bind [32]byte) {
	code := token.BindingCode(bind)
	why := "approval required from " + a.KeyID
	if a.Location != "" {
		why += " at " + a.Location
	}
	d.refuse(CheckApproval, j, caveat.Approval, why+" (code "+code+")")
	d.missing = append(d.missing, Missing{Block: j, KeyID: a.KeyID, Location: a.Location, Code: code, Binding: bind})
}

// checkDischarge checks the one discharge x (index k in the request) that
// matched the approval caveat a of block j: sub-steps 2 to 6 of step 6a.
// A discharge that passes them all is used: the decision records it and
// appends its budgets, keyed by its id.
func (d *Decision) checkDischarge(j int, a caveat.Approver, k int, x *token.Discharge, holder []byte, req *caveat.Request, now time.Time, opts *Options) {
	if x.UnverifiedKeyID() != a.KeyID {
		d.refuse(CheckApproval, j, caveat.Approval, "discharge is from another approver key id")
		return
	}
	// The key is the caveat's, never one the discharge or request names.
	pub, err := key.NewEd25519Public(a.KeyID, a.Key[:])
	if err != nil || x.Verify(pub) != nil {
		d.refuse(CheckApproval, j, caveat.Approval, "discharge signature does not verify")
		return
	}
	before := len(d.Refusals)
	cavs := x.UnverifiedCaveats() // kind order
	d.checkDischargeTime(j, cavs, req, now, opts.Skew)
	for _, c := range cavs {
		switch c.Kind {
		case caveat.Until, caveat.NotBefore:
		case caveat.Holder:
			// The approver approved calls by one holder: the ticket's
			// current one, whose DPoP proof step 7 checks.
			if holder == nil {
				d.refuse(CheckApproval, j, c.Kind, "discharge: the ticket is not bound to a holder key")
			} else if !bytes.Equal(holder, c.Bytes) {
				d.refuse(CheckApproval, j, c.Kind, "discharge: approved for another holder than the ticket's")
			}
		default:
			if err := c.Evaluate(req, now, opts.Skew); err != nil {
				d.refuse(CheckApproval, j, c.Kind, "discharge: "+reason(err))
			}
		}
	}
	id := token.BlockID(x.ID())
	if opts.Revoked != nil && opts.Revoked.Revoked(id) {
		d.refuse(CheckRevoked, j, caveat.Approval, "discharge "+id.String()+" is revoked")
	}
	if len(d.Refusals) > before {
		return
	}
	d.Discharges = append(d.Discharges, UsedDischarge{Block: j, KeyID: x.UnverifiedKeyID(), ID: id, Index: k})
	for _, c := range cavs {
		switch c.Kind {
		case caveat.Calls:
			d.Budgets = append(d.Budgets, Budget{Block: j, Kind: c.Kind, Key: id, Calls: c.N})
		case caveat.Total:
			d.Budgets = append(d.Budgets, Budget{Block: j, Kind: c.Kind, Key: id, Total: c.Amount})
		}
	}
}

// checkDischargeTime is sub-step 4: until (required by the format), nbf,
// and until − now at most MaxDischargeLifetime, now at full precision and
// without skew.
func (d *Decision) checkDischargeTime(j int, cavs []caveat.Caveat, req *caveat.Request, now time.Time, skew time.Duration) {
	var until, nbf *caveat.Caveat
	for i := range cavs {
		switch cavs[i].Kind {
		case caveat.Until:
			until = &cavs[i]
		case caveat.NotBefore:
			nbf = &cavs[i]
		}
	}
	if until != nil && until.Evaluate(req, now, skew) != nil {
		d.refuse(CheckApproval, j, caveat.Until, "discharge expired")
	}
	if nbf != nil && nbf.Evaluate(req, now, skew) != nil {
		d.refuse(CheckApproval, j, caveat.NotBefore, "discharge not yet valid")
	}
	if until != nil && time.Unix(until.Time, 0).Sub(now) > MaxDischargeLifetime {
		d.refuse(CheckApproval, j, caveat.Until, "discharge lives too long")
	}
}
