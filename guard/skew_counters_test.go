package guard_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// TestCountersOutliveEverySkew: two guards share one store, one with no
// skew and one tolerating 30 minutes (skew is per verifier). The first
// spends the calls=1 budget before until. The counter must outlive block
// 0's until plus any skew a guard may have, not the first guard's: kept
// only that long, once the store cleans the second guard (which still
// admits the ticket for 30 minutes after until) would find a fresh budget
// and allow the ticket twice on calls=1.
func TestCountersOutliveEverySkew(t *testing.T) {
	tk, keys := fixture(t, "calls=1") // until 13:00
	st := guard.NewMemoryStore()
	a, err := guard.New(guard.Config{Keys: keys, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	b, err := guard.New(guard.Config{Keys: keys, Store: st, Options: verify.Options{Skew: 30 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if d, err := a.Verify(ctx, tk, readFile(), t0.Add(30*time.Minute)); err != nil || !d.Allowed {
		t.Fatalf("first call: %v %v", d.Refusals, err)
	}
	later := t0.Add(70 * time.Minute) // 13:10, within b's skew
	allowed := 0
	for range guard.CleanEvery + 1 {
		d, err := b.Verify(ctx, tk, readFile(), later)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		}
	}
	if allowed > 0 {
		t.Errorf("a calls=1 ticket allowed %d more times by a guard with a larger skew after the store cleaned", allowed)
	}
}
