package guard

import "time"

// HoldState is the state of an admitted request's reservation. Stores
// implement Settle with its Settle method (or its equivalent in their own
// language), so that all of them settle alike.
type HoldState uint8

const (
	Held     HoldState = iota + 1 // reserved: counts against every budget, may be released
	Captured                      // permanent
	Released                      // given back
)

// ValidateOutcome returns an error matching [ErrInvalid] unless o is [Capture]
// or [Release].
func ValidateOutcome(o Outcome) error {
	if o != Capture && o != Release {
		return invalid("settle: unknown outcome %d", o)
	}
	return nil
}

// Settle returns the state after settling with o at now a reservation in
// state s whose hold ends at holdUntil, and whether the reservation must
// be given back to its budgets (only when a held reservation is released
// in time). It fails with [ErrSettled] when o is no longer possible, and
// with an error matching [ErrInvalid] for an unknown outcome or state.
func (s HoldState) Settle(o Outcome, now, holdUntil time.Time) (next HoldState, giveBack bool, err error) {
	if err := ValidateOutcome(o); err != nil {
		return s, false, err
	}
	switch s {
	case Held:
		if o == Capture {
			return Captured, false, nil
		}
		if now.After(holdUntil) {
			return Captured, false, ErrSettled
		}
		return Released, true, nil
	case Captured:
		if o == Capture {
			return s, false, nil
		}
		return s, false, ErrSettled
	case Released:
		if o == Release {
			return s, false, nil
		}
		return s, false, ErrSettled
	}
	return s, false, invalid("settle: unknown reservation state %d", s)
}

// HeldAt reports whether a reservation in state s whose hold ends at
// holdUntil is still held at now: it can still be released, as Settle
// decides. Once its hold has ended it counts as captured.
func (s HoldState) HeldAt(now, holdUntil time.Time) bool {
	return s == Held && !now.After(holdUntil)
}
