package guard

import (
	"errors"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// budgetsOf returns n budgets on distinct counters: a calls and a total
// budget per key, as a chain's blocks and its discharges give them.
func budgetsOf(n int) []verify.Budget {
	out := make([]verify.Budget, 0, n)
	for i := 0; len(out) < n; i++ {
		key := token.BlockID{byte(i), byte(i >> 8)}
		out = append(out, verify.Budget{Block: 0, Kind: caveat.Calls, Key: key, Calls: 1})
		if len(out) < n {
			out = append(out, verify.Budget{Block: 0, Kind: caveat.Total, Key: key, Total: caveat.Amount{Currency: "USD", Micros: 1}})
		}
	}
	return out
}

// TestMaxBudgetsBoundary: the longest chain (every block with a calls
// and a total caveat) plus a discharge with both for every approval it
// may carry is a valid set of budgets; one more is not.
func TestMaxBudgetsBoundary(t *testing.T) {
	most := 2*token.MaxBlocks + 2*token.MaxApprovals
	for _, tc := range []struct {
		n     int
		valid bool
	}{
		{2 * token.MaxBlocks, true},
		{2*token.MaxBlocks + 1, true},
		{most, true},
		{most + 1, false},
	} {
		err := ValidateBudgets(budgetsOf(tc.n))
		if (err == nil) != tc.valid || err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%d budgets: %v, want valid %v", tc.n, err, tc.valid)
		}
	}
}
