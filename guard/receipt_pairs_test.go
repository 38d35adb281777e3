package guard_test

import (
	"context"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
)

// TestReceiptsGroupCommitPaired measures decisions per second of a Guard
// with receipts (each receipt durable before Verify returns) with 8
// concurrent callers against one, as ABBA pairs in one process, and
// requires the median ratio to be at least 3: concurrent decisions share
// fsyncs (chain.Log's group commit). Set TICKETTOOL_PAIRS=1 to run it.
func TestReceiptsGroupCommitPaired(t *testing.T) {
	if os.Getenv("TICKETTOOL_PAIRS") != "1" {
		t.Skip("set TICKETTOOL_PAIRS=1 to measure")
	}
	tk, keys := fixture(t)
	log, _ := receiptLog(t)
	defer log.Close()
	g, err := guard.New(guard.Config{Keys: keys, Receipts: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const calls, pairs = 48, 15 // calls per caller per batch
	// rate runs callers goroutines of calls decisions each and returns
	// records per second.
	rate := func(callers int) float64 {
		var wg sync.WaitGroup
		start := time.Now()
		for range callers {
			wg.Go(func() {
				for range calls {
					if d, err := g.Verify(ctx, tk, readFile(), t0); err != nil || !d.Allowed {
						t.Errorf("verify: %v %v", err, d.Refusals)
						return
					}
				}
			})
		}
		wg.Wait()
		return float64(callers*calls) / time.Since(start).Seconds()
	}
	rate(8) // warm up
	rate(1)
	ratios := make([]float64, pairs)
	var one, eight []float64
	for i := range ratios {
		a1, b1, b2, a2 := rate(8), rate(1), rate(1), rate(8)
		ratios[i] = (a1 + a2) / (b1 + b2)
		one, eight = append(one, b1, b2), append(eight, a1, a2)
	}
	sort.Float64s(ratios)
	sort.Float64s(one)
	sort.Float64s(eight)
	med := ratios[len(ratios)/2]
	t.Logf("receipts/s: 1 caller median %.0f, 8 callers median %.0f; ratio median %.2f, range %.2f..%.2f (%d ABBA pairs)",
		one[len(one)/2], eight[len(eight)/2], med, ratios[0], ratios[len(ratios)-1], pairs)
	if med < 3 {
		t.Errorf("8 callers write %.2fx the receipts of one, want at least 3x", med)
	}
}
