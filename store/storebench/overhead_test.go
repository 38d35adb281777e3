package storebench

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
	"github.com/tickettool/tickettool/verify"
)

// engine is one store and its bare engine, each doing admission number i.
type engine struct {
	name  string
	batch int // operations per batch
	store func(ctx context.Context, i uint64) error
	bare  func(ctx context.Context, i uint64) error
}

const rounds = 5 // A B B A groups per engine and concurrency

var seq atomic.Uint64 // numbers every operation, so none repeats

var (
	chain   = storetest.Chain("bench", 2)
	budgets = []verify.Budget{
		storetest.Calls(chain, 0, guard.MaxCount),
		storetest.Total(chain, 0, guard.MaxCount, "USD"),
		storetest.Calls(chain, 1, guard.MaxCount),
	}
)

// admission returns admission number i: a two-block chain, three
// budgets, a cost and a DPoP replay key — the full case.
func admission(i uint64, now time.Time) guard.Admission {
	var id guard.RequestID
	binary.BigEndian.PutUint64(id[8:], i+1)
	binary.BigEndian.PutUint64(id[:8], uint64(now.UnixNano()))
	return guard.Admission{Request: id, Blocks: chain, Budgets: budgets, Cost: storetest.Cost(1, "USD"),
		Now: now, Expires: now.Add(time.Hour), Replay: storetest.Replay(fmt.Sprint("jti-", i), "https://bench/", now.Add(5*time.Minute))}
}

func admitWith(s guard.Store) func(context.Context, uint64) error {
	return func(ctx context.Context, i uint64) error {
		v, err := s.Admit(ctx, admission(i, time.Now()))
		if err == nil && !v.Admitted {
			err = fmt.Errorf("refused: %+v", v)
		}
		return err
	}
}

// batch runs n operations of fn on callers goroutines and returns the
// wall time.
func batch(t *testing.T, fn func(context.Context, uint64) error, n, callers int) time.Duration {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	begin := time.Now()
	for range callers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := fn(context.Background(), seq.Add(1)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(begin)
}

type result struct {
	engine              string
	callers             int
	storeRate, bareRate float64
	median, lo, hi      float64
}

// measure alternates store and bare batches A B B A and returns the
// rates and the ratios of store time over bare time per group.
func measure(t *testing.T, e engine, callers int) result {
	batch(t, e.store, e.batch/4, callers) // warm up both
	batch(t, e.bare, e.batch/4, callers)
	var ratios []float64
	var ts, tb time.Duration
	for range rounds {
		a1 := batch(t, e.store, e.batch, callers)
		b1 := batch(t, e.bare, e.batch, callers)
		b2 := batch(t, e.bare, e.batch, callers)
		a2 := batch(t, e.store, e.batch, callers)
		ratios = append(ratios, float64(a1+a2)/float64(b1+b2))
		ts, tb = ts+a1+a2, tb+b1+b2
	}
	slices.Sort(ratios)
	ops := float64(2 * rounds * e.batch)
	return result{e.name, callers, ops / ts.Seconds(), ops / tb.Seconds(), ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1]}
}

func TestOverhead(t *testing.T) {
	if os.Getenv("TICKETTOOL_STORE_BENCH") == "" {
		t.Skip("set TICKETTOOL_STORE_BENCH=1 to measure (see the package doc)")
	}
	engines := []engine{memoryEngine(t), sqliteEngine(t, false), sqliteEngine(t, true)}
	if addr := os.Getenv("TICKETTOOL_REDIS_ADDR"); addr != "" {
		engines = append(engines, redisEngine(t, addr))
	}
	var out strings.Builder
	out.WriteString("| store | callers | store admissions/s | bare engine ops/s | store time ÷ bare (median, range) |\n|---|---:|---:|---:|---|\n")
	for _, e := range engines {
		for _, callers := range []int{1, 8} {
			r := measure(t, e, callers)
			fmt.Fprintf(&out, "| %s | %d | %.0f | %.0f | %.2f× (%.2f–%.2f) |\n",
				r.engine, r.callers, r.storeRate, r.bareRate, r.median, r.lo, r.hi)
		}
	}
	t.Log("\n" + out.String())
}
