package guard

import (
	"context"
	"time"

	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Held implements [HeldReporter]: the charges of the family's requests
// still held at now, per budget.
func (s *MemoryStore) Held(ctx context.Context, family token.BlockID, budgets []verify.Budget, now time.Time) ([]uint64, error) {
	if err := ValidateBudgets(budgets); err != nil {
		return nil, err
	}
	if err := s.lock(ctx, "held"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	held := map[Counter]uint64{}
	for k, h := range s.held {
		if k.family != family || !Held.HeldAt(now, fromNanos(h.hold)) {
			continue
		}
		for _, c := range h.charges {
			held[c.Counter] += c.Amount
		}
	}
	out := make([]uint64, len(budgets))
	for i, b := range budgets {
		out[i] = held[CounterOf(b)]
	}
	return out, nil
}
