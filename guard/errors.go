package guard

import (
	"errors"
	"fmt"
)

var (
	// ErrStore matches (errors.Is) every failure of a store to complete a
	// step: I/O, a timeout or cancelled context, a closed handle, data it
	// cannot read. The caller must refuse the call: stores fail closed.
	ErrStore = errors.New("guard: store failed")

	// ErrInvalid matches every error for a malformed admission, budget or
	// revocation: the caller's input breaks a rule, the store is untouched.
	ErrInvalid = errors.New("guard: invalid")

	// ErrConflict is returned by Admit for a request id already used for
	// an admission with other content (blocks, proof, budgets or cost).
	ErrConflict = errors.New("guard: request id already used for another admission")

	// ErrSettled is returned by Settle when the reservation cannot be
	// settled that way any more: Release after a capture or after
	// HoldUntil, [Capture] after a release.
	ErrSettled = errors.New("guard: reservation already settled the other way")

	// ErrNoReservation is returned by Settle for a request id that holds
	// no reservation in the family: never admitted, refused, or forgotten.
	ErrNoReservation = errors.New("guard: no reservation for this request")
)

// StoreError is a store's failure to complete a step. It matches [ErrStore]
// and unwraps to the cause (a context error, a driver error).
type StoreError struct {
	Store string // the store's package: "guard", "sqlitestore", "redisstore"
	Op    string // the step: "admit", "settle", "open", ...
	Err   error
}

// Error returns "STORE: OP: CAUSE".
func (e *StoreError) Error() string { return e.Store + ": " + e.Op + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *StoreError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrStore].
func (e *StoreError) Is(target error) bool { return target == ErrStore }

// Failed returns a *[StoreError], for store implementations.
func Failed(store, op string, err error) error {
	return &StoreError{Store: store, Op: op, Err: err}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}
