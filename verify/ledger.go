package verify

import (
	"sync"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

// Ledger counts what budgets have been spent. Budgets are keyed by the id of
// the block that set them (Budget.Key), so every ticket descending from that
// block — a whole delegation family for a block-0 budget — draws on one
// allowance and cannot multiply it.
//
// A Ledger must be safe for concurrent use, and Charge must be atomic: of
// several calls racing for the last unit of a budget, exactly one wins.
type Ledger interface {
	// Charge checks that every budget has room for one more call costing
	// cost (nil for none) and, only if all do, charges all of them. It
	// returns the index in budgets of the first one without room, or -1
	// when it charged.
	Charge(budgets []Budget, cost *caveat.Amount) (exhausted int, err error)
}

// MemoryLedger is the in-process Ledger. Its counts live as long as it
// does; a durable or shared ledger implements the same interface.
type MemoryLedger struct {
	mu    sync.Mutex
	calls map[token.BlockID]uint64
	spent map[token.BlockID]uint64 // micros, in the budget's currency
}

// NewMemoryLedger returns an empty ledger.
func NewMemoryLedger() *MemoryLedger {
	return &MemoryLedger{calls: map[token.BlockID]uint64{}, spent: map[token.BlockID]uint64{}}
}

// Charge implements Ledger.
func (l *MemoryLedger) Charge(budgets []Budget, cost *caveat.Amount) (int, error) {
	if len(budgets) == 0 {
		return -1, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, b := range budgets {
		switch b.Kind {
		case caveat.Calls:
			if l.calls[b.Key] >= b.Calls {
				return i, nil
			}
		case caveat.Total:
			// Verify refuses a total caveat for a call without a cost in
			// its currency, so cost is set and matches here.
			if cost == nil || cost.Currency != b.Total.Currency {
				return i, nil
			}
			spent := l.spent[b.Key]
			if cost.Micros > b.Total.Micros || spent > b.Total.Micros-cost.Micros {
				return i, nil
			}
		}
	}
	for _, b := range budgets {
		switch b.Kind {
		case caveat.Calls:
			l.calls[b.Key]++
		case caveat.Total:
			l.spent[b.Key] += cost.Micros
		}
	}
	return -1, nil
}

// Spent returns the calls and the total charged under one budget key.
func (l *MemoryLedger) Spent(key token.BlockID) (calls, micros uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls[key], l.spent[key]
}
