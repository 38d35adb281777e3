package sqlitestore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Held implements [guard.HeldReporter]: the charges of the family's
// requests still held at now (state held, hold not ended), per budget.
func (s *Store) Held(ctx context.Context, family token.BlockID, budgets []verify.Budget, now time.Time) ([]uint64, error) {
	if err := guard.ValidateBudgets(budgets); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT charges FROM requests WHERE family = ? AND state = ? AND hold >= ?`,
		family[:], int64(guard.Held), nanos(now))
	if err != nil {
		return nil, s.failed("held", err)
	}
	defer rows.Close()
	held := map[string]uint64{}
	for rows.Next() {
		var charges string
		if err := rows.Scan(&charges); err != nil {
			return nil, s.failed("held", err)
		}
		for line := range strings.Lines(charges) {
			name, n, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
			amount, err := strconv.ParseUint(n, 10, 63)
			if !ok || err != nil {
				return nil, s.failed("held", fmt.Errorf("unreadable charge %q", line))
			}
			held[name] += amount
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.failed("held", err)
	}
	out := make([]uint64, len(budgets))
	for i, b := range budgets {
		out[i] = held[guard.CounterOf(b).String()]
	}
	return out, nil
}
