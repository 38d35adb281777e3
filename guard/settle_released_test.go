package guard_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
)

// TestCaptureAfterReleaseReceipt: Settle(Capture) on a reservation
// already released fails in the store with ErrSettled; Guard.Settle must
// not take that for "already captured" (true only after a hold ended),
// return nil and write a captured receipt while the budget stays given
// back: it fails, and no captured receipt is written.
func TestCaptureAfterReleaseReceipt(t *testing.T) {
	tk, keys := fixture(t, "calls=1")
	log, path := receiptLog(t)
	ctx := context.Background()
	g, err := guard.New(guard.Config{Keys: keys, Receipts: log, Hold: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Verify(ctx, tk, readFile(), t0)
	if err != nil || !d.Allowed {
		t.Fatalf("call: %v %v", err, d.Refusals)
	}
	if err := g.Settle(ctx, &d, guard.Release, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	captureErr := g.Settle(ctx, &d, guard.Capture, t0.Add(2*time.Second))
	kinds := receiptKinds(t, log, path)
	if captureErr == nil || strings.Contains(kinds, "captured") {
		t.Errorf("capture after release: err %v, receipts %v (the budget was given back)", captureErr, kinds)
	}
}
