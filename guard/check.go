package guard

import (
	"slices"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// check enforces the rules of an Admission every store relies on.
func check(a *Admission) error {
	if a.Request == (RequestID{}) {
		return invalid("admission: zero request id")
	}
	if len(a.Blocks) == 0 || len(a.Blocks) > token.MaxBlocks {
		return invalid("admission: %d blocks, want 1 to %d", len(a.Blocks), token.MaxBlocks)
	}
	if a.Now.IsZero() {
		return invalid("admission: zero time")
	}
	if a.Replay != nil && (a.Replay.Key.JTI == "" || a.Replay.Until.IsZero()) {
		return invalid("admission: replay entry without a jti or an until")
	}
	if a.Cost != nil {
		if a.Cost.Micros > MaxCount {
			return invalid("admission: cost of %d micros is above 2^53, the most a store counts exactly", a.Cost.Micros)
		}
		if !validCurrency(a.Cost.Currency) {
			return invalid("admission: cost currency is not 3 letters A-Z")
		}
	}
	if len(a.Discharges) > verify.MaxDischarges {
		return invalid("admission: %d discharges, at most %d", len(a.Discharges), verify.MaxDischarges)
	}
	if err := ValidateBudgets(a.Budgets); err != nil {
		return err
	}
	for i, b := range a.Budgets {
		if b.Block < 0 || b.Block >= len(a.Blocks) || b.Key != a.Blocks[b.Block] && !slices.Contains(a.Discharges, b.Key) {
			return invalid("admission: budget %d: its key is neither the id of block %d of the chain nor a used discharge's", i, b.Block)
		}
	}
	return nil
}

// ValidateBudgets checks budgets as Admit and Spent take them: at most
// [MaxBudgets], each a calls or total budget with a limit of at most
// [MaxCount], no two on the same counter. The error matches [ErrInvalid].
func ValidateBudgets(budgets []verify.Budget) error {
	if len(budgets) > MaxBudgets {
		return invalid("budgets: %d, at most %d", len(budgets), MaxBudgets)
	}
	for i, b := range budgets {
		switch b.Kind {
		case caveat.Calls:
		case caveat.Total:
			if !validCurrency(b.Total.Currency) {
				return invalid("budget %d: currency is not 3 letters A-Z", i)
			}
		default:
			return invalid("budget %d: kind %s is not calls or total", i, b.Kind)
		}
		if l := Limit(b); l > MaxCount {
			return invalid("budget %d: limit %d is above 2^53, the most a store counts exactly", i, l)
		}
		for j := range i {
			if CounterOf(budgets[j]) == CounterOf(b) {
				return invalid("budget %d: same counter as budget %d", i, j)
			}
		}
	}
	return nil
}

// ValidateBlocks checks block ids as Revoke and [Revoked] take them: at least
// one and at most [token.MaxBlocks]. The error matches [ErrInvalid].
func ValidateBlocks(blocks []token.BlockID) error {
	if len(blocks) == 0 || len(blocks) > token.MaxBlocks {
		return invalid("%d block ids, want 1 to %d", len(blocks), token.MaxBlocks)
	}
	return nil
}

func validCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
