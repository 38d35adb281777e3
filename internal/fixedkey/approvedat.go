package fixedkey

import (
	"time"

	"github.com/tickettool/tickettool/caveat"
)

// ApprovedAt is the clock of an approver who makes a discharge with
// caveats one minute before it ends: a now at which token.Approve accepts
// any until (an expired one, or one too far ahead for a verifier at
// another time), so that tests and vector generators can make the
// discharges verifiers must refuse. Without an until it is the zero time
// (Approve refuses such caveats anyway).
func ApprovedAt(caveats []caveat.Caveat) time.Time {
	for _, c := range caveats {
		if c.Kind == caveat.Until {
			return time.Unix(c.Time, 0).Add(-time.Minute)
		}
	}
	return time.Time{}
}
