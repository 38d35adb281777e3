// Package storetest is the conformance suite every guard.Store must pass:
// the same tests, run against the memory store, SQLite and Redis, so that
// a deployment can move between them without changing what is admitted.
package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Factory makes one new, empty store and returns a function that opens a
// handle to it. Each call of that function may return a new handle (a new
// connection) to the same store; the factory closes them all when t ends.
type Factory func(t *testing.T) (open func(t *testing.T) guard.Store)

// Run runs the conformance suite against the stores f makes. Every test
// makes its own store.
func Run(t *testing.T, f Factory) {
	tests := []struct {
		name string
		run  func(*testing.T, Factory)
	}{
		{"AllOrNothing", testAllOrNothing},
		{"CallsBoundary", testCallsBoundary},
		{"TotalBoundary", testTotalBoundary},
		{"TotalCurrency", testTotalCurrency},
		{"LargestCount", testLargestCount},
		{"Invalid", testInvalid},
		{"Replay", testReplay},
		{"Revocation", testRevocation},
		{"RetrySameRequest", testRetry},
		{"RetryAfterFailure", testRetryAfterFailure},
		{"Conflict", testConflict},
		{"Release", testRelease},
		{"ReleaseAfterHold", testReleaseAfterHold},
		{"CaptureIdempotent", testCapture},
		{"SettleUnknown", testSettleUnknown},
		{"Spent", testSpent},
		{"Held", testHeld},
		{"Cancelled", testCancelled},
		{"Closed", testClosed},
		{"RaceCalls", testRaceCalls},
		{"RaceReplayTwoHandles", testRaceReplay},
		{"ReplayAcrossWindows", testReplayAcrossWindows},
		{"RevokeAcrossHandles", testRevokeAcrossHandles},
		{"Discharges", testDischarges},
		{"Operations", testOperations},
		{"OperationLimits", testOperationLimits},
		{"OperationFull", testOperationFull},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, f) })
	}
}

// Chain returns n deterministic block ids named by name: a family whose
// block 0 is Chain(name, n)[0]. A longer chain of the same name extends a
// shorter one, as a delegation does.
func Chain(name string, n int) []token.BlockID {
	ids := make([]token.BlockID, n)
	for i := range ids {
		ids[i] = sha256.Sum256(fmt.Appendf(nil, "storetest %s %d", name, i))
	}
	return ids
}

// Calls returns a calls budget of n set by block i of chain.
func Calls(chain []token.BlockID, i int, n uint64) verify.Budget {
	return verify.Budget{Block: i, Kind: caveat.Calls, Key: chain[i], Calls: n}
}

// Total returns a total budget of micros in currency set by block i.
func Total(chain []token.BlockID, i int, micros uint64, currency string) verify.Budget {
	return verify.Budget{Block: i, Kind: caveat.Total, Key: chain[i],
		Total: caveat.Amount{Micros: micros, Currency: currency}}
}

// Cost returns a cost of micros in currency.
func Cost(micros uint64, currency string) *caveat.Amount {
	return &caveat.Amount{Micros: micros, Currency: currency}
}

// Replay returns a replay entry for jti at uri, live until until.
func Replay(jti, uri string, until time.Time) *guard.ReplayEntry {
	return &guard.ReplayEntry{Key: dpop.ReplayKey{JTI: jti, URI: uri}, Until: until}
}

// Base returns a time for tests to count from: the present to the
// millisecond, since stores that expire keys by their own clock (Redis)
// must see lifetimes in the future.
func Base() time.Time { return time.Now().Truncate(time.Millisecond) }

// Admission returns an admission of chain with budgets, a fresh request
// id, at now, expiring an hour later.
func Admission(chain []token.BlockID, now time.Time, budgets ...verify.Budget) guard.Admission {
	return guard.Admission{Request: guard.NewRequestID(), Blocks: chain, Budgets: budgets,
		Now: now, Expires: now.Add(time.Hour)}
}

var ctx = context.Background()

func admit(t *testing.T, s guard.Store, a guard.Admission) guard.Verdict {
	t.Helper()
	v, err := s.Admit(ctx, a)
	if err != nil {
		t.Fatalf("admit: %v", err)
	}
	if v.Admitted != (v.Reason == guard.Admitted) {
		t.Fatalf("verdict %+v: Admitted and Reason disagree", v)
	}
	return v
}

func wantAdmitted(t *testing.T, s guard.Store, a guard.Admission) {
	t.Helper()
	if v := admit(t, s, a); !v.Admitted || v.Index != -1 {
		t.Fatalf("verdict %+v, want admitted with index -1", v)
	}
}

func wantRefused(t *testing.T, s guard.Store, a guard.Admission, r guard.Reason, index int) {
	t.Helper()
	if v := admit(t, s, a); v.Admitted || v.Reason != r || v.Index != index {
		t.Fatalf("verdict %+v, want %s at index %d", v, r, index)
	}
}

func spent(t *testing.T, s guard.Store, family token.BlockID, budgets ...verify.Budget) []uint64 {
	t.Helper()
	u, err := s.Spent(ctx, family, budgets)
	if err != nil {
		t.Fatalf("spent: %v", err)
	}
	out := make([]uint64, len(u))
	for i := range u {
		out[i] = u[i].Spent
	}
	return out
}

func wantSpent(t *testing.T, s guard.Store, family token.BlockID, budgets []verify.Budget, want ...uint64) {
	t.Helper()
	got := spent(t, s, family, budgets...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("spent %v, want %v", got, want)
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want %v", err, target)
	}
}
