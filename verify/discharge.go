package verify

import (
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/token"
)

// DischargeError is a request's discharge that does not decode, or a
// request with more than [MaxDischarges] (spec/FORMAT.md §7 step 1): the
// input is malformed and there is no decision. It wraps the token error,
// so errors.Is(err, token.ErrMalformed) holds.
type DischargeError struct {
	Index int   // the discharge's index in the request, from 0; -1 for too many
	Err   error // wraps token.ErrMalformedDischarge
}

func (e *DischargeError) Error() string {
	why := strings.TrimPrefix(e.Err.Error(), "token: ")
	if e.Index < 0 {
		return "verify: " + why
	}
	return "verify: discharge " + strconv.Itoa(e.Index) + ": " + why
}

// Unwrap returns the token error.
func (e *DischargeError) Unwrap() error { return e.Err }

// UsedDischarge is a discharge that passed step 6a for the approval
// caveat of block Block: the approver's key id, the discharge id (DID) and
// its index in the request.
type UsedDischarge struct {
	Block int
	KeyID string
	ID    token.BlockID // the DID, as revocations and budgets name it
	Index int           // in caveat.Request.Discharges, from 0
}

// Missing is an approval caveat no discharge of the request matched: whom
// to ask (key id and location), and the binding the discharge must carry
// with its code for people (token.BindingCode).
//
// For a threshold approval KeyID is empty; Need is its threshold,
// Approved the key ids whose discharges passed and Waiting the others,
// in the caveat's order. For a single approver Need is 1 and both are nil.
type Missing struct {
	Block    int
	KeyID    string
	Need     int
	Approved []string
	Waiting  []string
	Location string
	Code     string
	Binding  [32]byte
}

// MissingApproval returns the approvals d refused for want of a discharge
// (the refusals "approval required from …"), blocks ascending, so that a
// caller can tell the agent whom to ask without parsing a reason.
func MissingApproval(d *Decision) []Missing {
	if d == nil || len(d.missing) == 0 {
		return nil
	}
	return append([]Missing(nil), d.missing...)
}

// decodeDischarges decodes the request's discharges strictly (step 1);
// none gives nil without allocating.
func decodeDischarges(texts []string) ([]*token.Discharge, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if len(texts) > MaxDischarges {
		return nil, &DischargeError{Index: -1, Err: &token.Error{Block: -1,
			Reason: "a request carries at most " + strconv.Itoa(MaxDischarges) + " discharges", Err: token.ErrMalformedDischarge}}
	}
	out := make([]*token.Discharge, len(texts))
	for i, s := range texts {
		d, err := token.ParseDischarge(s)
		if err != nil {
			return nil, &DischargeError{Index: i, Err: err}
		}
		out[i] = d
	}
	return out, nil
}
