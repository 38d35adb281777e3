package verify

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// checkApprovals is step 6a of spec/FORMAT.md §7: each approval, by the
// block where its nonce first appears, ascending, is matched to the
// discharges whose binding is that block's Bind_j, comparing bytes before
// any signature work. A later caveat with the same nonce restates the
// approval, narrower (package caveat's Scope checked that), and the latest
// restatement is the one in force. A single approver's lone match is
// checked (key id, signature, time, caveats, revocation); a threshold
// approval's matches are checked one per approver and counted. Then every
// discharge that matched nothing is refused. holder is the ticket's
// current holder thumbprint, or nil. A ticket without approval caveats
// and a request without discharges cost one pass over the caveats and no
// allocation.
func (d *Decision) checkApprovals(t *token.Ticket, chain *token.Verified, holder []byte, dis []*token.Discharge, req *caveat.Request, now time.Time, opts *Options) {
	var matched [MaxDischarges]bool
	for j := range chain.Blocks {
		for _, c := range chain.Blocks[j].Caveats {
			if c.Kind != caveat.Approval || restated(chain, j, c.Approver) {
				continue
			}
			a := inForce(chain, j, c.Approver)
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
			switch {
			case a.Members != nil:
				d.checkThreshold(j, a, bind, dis, holder, req, now, opts)
			case n == 0:
				d.refuseMissing(j, *a, bind)
			case n == 1:
				if x := dis[one]; x.UnverifiedKeyID() != a.KeyID {
					d.refuse(CheckApproval, j, caveat.Approval, "discharge is from another approver key id")
				} else {
					d.checkDischarge(j, caveat.Member{KeyID: a.KeyID, Key: a.Key}, one, x, holder, req, now, opts)
				}
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

// restated reports whether an approval of a block before j has a's nonce:
// then a restates that approval and is checked as part of it.
func restated(chain *token.Verified, j int, a *caveat.Approver) bool {
	for i := range j {
		for _, c := range chain.Blocks[i].Caveats {
			if c.Kind == caveat.Approval && c.Approver.Nonce == a.Nonce {
				return true
			}
		}
	}
	return false
}

// inForce returns the latest approval with a's nonce, from block j on.
func inForce(chain *token.Verified, j int, a *caveat.Approver) *caveat.Approver {
	for i := j + 1; i < len(chain.Blocks); i++ {
		for _, c := range chain.Blocks[i].Caveats {
			if c.Kind == caveat.Approval && c.Approver.Nonce == a.Nonce {
				a = c.Approver
			}
		}
	}
	return a
}

// checkThreshold checks the discharges bound to bind against the threshold
// approval a, whose nonce first appears in block j: in the request's order,
// a discharge whose key id is not an approver's is refused; two or more
// from one key id are refused once and none of them checked; each other is
// checked as a single approver's is. When fewer than a.Need approvers
// passed, the approval is refused naming how many are still missing and
// from whom.
func (d *Decision) checkThreshold(j int, a *caveat.Approver, bind [32]byte, dis []*token.Discharge, holder []byte, req *caveat.Request, now time.Time, opts *Options) {
	var approved [caveat.MaxApprovers]bool
	for k, x := range dis {
		if x.UnverifiedBinding() != bind {
			continue
		}
		m := member(a, x.UnverifiedKeyID())
		switch {
		case m < 0:
			d.refuse(CheckApproval, j, caveat.Approval, "discharge is from another approver key id")
		case sameKeyID(dis[:k], bind, x):
			// refused at the first of them
		case sameKeyID(dis[k+1:], bind, x):
			d.refuse(CheckApproval, j, caveat.Approval, "more than one discharge from "+a.Members[m].KeyID)
		default:
			approved[m] = d.checkDischarge(j, a.Members[m], k, x, holder, req, now, opts)
		}
	}
	have := 0
	for _, ok := range approved {
		if ok {
			have++
		}
	}
	if have < a.Need {
		d.refuseThreshold(j, a, approved[:len(a.Members)], have, bind)
	}
}

// member returns the index of the approver with key id id in a, or -1.
func member(a *caveat.Approver, id string) int {
	for i, m := range a.Members {
		if m.KeyID == id {
			return i
		}
	}
	return -1
}

// sameKeyID reports whether one of dis is bound to bind with x's key id.
func sameKeyID(dis []*token.Discharge, bind [32]byte, x *token.Discharge) bool {
	for _, y := range dis {
		if y.UnverifiedBinding() == bind && y.UnverifiedKeyID() == x.UnverifiedKeyID() {
			return true
		}
	}
	return false
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
	d.missing = append(d.missing, Missing{Block: j, KeyID: a.KeyID, Location: a.Location, Code: code, Binding: bind, Need: 1})
}

// refuseThreshold refuses a threshold approval that have approvers of
// a.Need approved, with the reason spec/FORMAT.md §7 step 6a fixes byte
// for byte ("approvals required: 2 of 3: approved by alice; waiting for
// one of bob, carol (code …)"), and records it for [MissingApproval].
func (d *Decision) refuseThreshold(j int, a *caveat.Approver, approved []bool, have int, bind [32]byte) {
	m := Missing{Block: j, Location: a.Location, Code: token.BindingCode(bind), Binding: bind, Need: a.Need}
	for i, ok := range approved {
		if ok {
			m.Approved = append(m.Approved, a.Members[i].KeyID)
		} else {
			m.Waiting = append(m.Waiting, a.Members[i].KeyID)
		}
	}
	why := "approvals required: " + strconv.Itoa(a.Need) + " of " + strconv.Itoa(len(a.Members)) + ": "
	if have > 0 {
		why += "approved by " + strings.Join(m.Approved, ", ") + "; "
	}
	why += "waiting for " + countWord(a.Need-have) + " of " + strings.Join(m.Waiting, ", ")
	if a.Location != "" {
		why += " at " + a.Location
	}
	d.refuse(CheckApproval, j, caveat.Approval, why+" (code "+m.Code+")")
	d.missing = append(d.missing, m)
}

// countWord writes 1 to caveat.MaxApprovers as an English word.
func countWord(n int) string {
	return [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight"}[n]
}

// checkDischarge checks the one discharge x (index k in the request) that
// matched the approver a of the approval of block j, its key id already
// compared: sub-steps 3 to 6 of step 6a, true when it passed them all.
// A discharge that passes them all is used: the decision records it and
// appends its budgets, keyed by its id.
func (d *Decision) checkDischarge(j int, a caveat.Member, k int, x *token.Discharge, holder []byte, req *caveat.Request, now time.Time, opts *Options) bool {
	// The key is the caveat's, never one the discharge or request names.
	pub, err := key.NewEd25519Public(a.KeyID, a.Key[:])
	if err != nil || x.Verify(pub) != nil {
		d.refuse(CheckApproval, j, caveat.Approval, "discharge signature does not verify")
		return false
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
		return false
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
	return true
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
