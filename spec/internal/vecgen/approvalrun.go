package vecgen

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// requestExtras sets what a request carries for step 6a: its discharges
// and its arguments digest.
func requestExtras(req *caveat.Request, r *Request) error {
	req.Discharges = r.Discharges
	if r.Args != "" {
		b, err := hex.DecodeString(r.Args)
		if err != nil || len(b) != 32 {
			return fmt.Errorf("bad args %q", r.Args)
		}
		req.Args = b
	}
	return nil
}

// checkMalformed checks a request whose discharges must not decode
// (expect "malformed"): verify's error, naming the discharge's index.
func checkMalformed(err error, r *Request) error {
	if r.Expect != "malformed" {
		return err
	}
	var de *verify.DischargeError
	if !errors.Is(err, token.ErrMalformed) || !errors.As(err, &de) {
		return fmt.Errorf("got %v, want a malformed discharge", err)
	}
	want := -1
	if r.Discharge != nil {
		want = *r.Discharge
	}
	if de.Index != want {
		return fmt.Errorf("malformed discharge %d, want %d", de.Index, want)
	}
	return nil
}

// decisionApprovals is what an allowed decision says of its used
// discharges, in the vectors' form.
func decisionApprovals(d *verify.Decision) []Approval {
	var out []Approval
	for _, u := range d.Discharges {
		out = append(out, Approval{Block: u.Block, KeyID: u.KeyID, Discharge: u.Index, ID: u.ID.String()})
	}
	return out
}

// dischargeOf returns the request index of the used discharge whose id
// keys budget b, or nil for a budget of the ticket.
func dischargeOf(d *verify.Decision, b verify.Budget) *int {
	for _, u := range d.Discharges {
		if u.ID == b.Key {
			i := u.Index
			return &i
		}
	}
	return nil
}

// sameJSON compares two values by their JSON forms (the vectors' types
// hold pointers, which == would compare by address).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// ledger charges the allowed requests of a sequence vector through the Go
// guard's memory store, in one atomic admission each, as a caller would.
type ledger struct{ store *guard.MemoryStore }

// charge admits an allowed decision and compares the outcome with the
// request's charge and exhausted index.
func (l *ledger) charge(d *verify.Decision, req *caveat.Request, r *Request, now time.Time) error {
	if l == nil || !d.Allowed {
		if r.Charge != "" || r.Exhausted != nil {
			return errors.New("a charge outside a sequence, or on a refused request")
		}
		return nil
	}
	a := guard.Admission{Request: guard.NewRequestID(), Blocks: d.BlockIDs, Budgets: d.Budgets, Cost: req.Cost, Now: now}
	for _, u := range d.Discharges {
		a.Discharges = append(a.Discharges, u.ID)
	}
	v, err := l.store.Admit(context.Background(), a)
	if err != nil {
		return err
	}
	got, idx := "ok", (*int)(nil)
	if !v.Admitted {
		if v.Reason != guard.Exhausted {
			return fmt.Errorf("charge refused: %s", v.Reason)
		}
		got, idx = "exhausted", &v.Index
	}
	if got != r.Charge || !sameJSON(idx, r.Exhausted) {
		return fmt.Errorf("charge %s %v, want %s %v", got, idx, r.Charge, r.Exhausted)
	}
	return nil
}

// nonNil makes an absent list an empty one, as the decision's is.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
