package redisstore

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

// heldScanCount is the COUNT hint of each SCAN step Held takes.
const heldScanCount = 1000

// Held implements [guard.HeldReporter]: the charges of the family's
// requests still held at now (state held, hold not ended), per budget.
// Redis keeps no index of a family's requests, so it SCANs the keyspace
// for the family's request keys (PREFIX{FAMILY}:req:*): its cost grows
// with the database, which is why only people looking call it.
func (s *Store) Held(ctx context.Context, family token.BlockID, budgets []verify.Budget, now time.Time) ([]uint64, error) {
	if err := guard.ValidateBudgets(budgets); err != nil {
		return nil, err
	}
	k := s.keys(family)
	held := map[string]uint64{}
	var cursor uint64
	for {
		names, next, err := s.rdb.Scan(ctx, cursor, globEscape(k.base)+"req:*", heldScanCount).Result()
		if err != nil {
			return nil, guard.Failed("redisstore", "held", err)
		}
		if len(names) > 0 {
			recs, err := s.rdb.MGet(ctx, names...).Result()
			if err != nil {
				return nil, guard.Failed("redisstore", "held", err)
			}
			for _, r := range recs {
				rec, ok := r.(string)
				if !ok {
					continue // expired between SCAN and MGET
				}
				if err := addHeld(held, rec, now); err != nil {
					return nil, guard.Failed("redisstore", "held", err)
				}
			}
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	out := make([]uint64, len(budgets))
	for i, b := range budgets {
		out[i] = held[k.counter(guard.CounterOf(b))]
	}
	return out, nil
}

// addHeld adds the charges of one request record (scripts.go:
// DIGEST|REASON|INDEX|STATE|HOLD|KEEP|CHARGES) to held when it is held at
// now.
func addHeld(held map[string]uint64, rec string, now time.Time) error {
	f := strings.SplitN(rec, "|", 7)
	if len(f) != 7 {
		return fmt.Errorf("unreadable request record")
	}
	state, err1 := strconv.ParseUint(f[3], 10, 8)
	hold, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("unreadable request record")
	}
	// Times in µs, as the settle script compares them.
	if f[1] != "0" || guard.HoldState(state) != guard.Held || now.UnixMicro() > hold {
		return nil
	}
	for line := range strings.Lines(f[6]) {
		name, n, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		amount, err := strconv.ParseUint(n, 10, 63)
		if !ok || err != nil {
			return fmt.Errorf("unreadable charge %q", line)
		}
		held[name] += amount
	}
	return nil
}

// globEscape escapes the characters SCAN's MATCH pattern gives a meaning.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
