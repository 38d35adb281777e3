package guard_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
)

// TestOperationKey: under an operation key the first call runs and is
// charged; a repeat of the same request gets the first result back byte for
// byte, from another guard on the store too, as one replayed receipt naming
// the first request, charging nothing; the key with another request, or
// while the first still runs, is refused; a released call frees its key.
func TestOperationKey(t *testing.T) {
	tk, keys := fixture(t, "calls=5")
	store := guard.NewMemoryStore()
	log, path := receiptLog(t)
	ctx := context.Background()
	g, err := guard.New(guard.Config{Keys: keys, Store: store, Receipts: log, Hold: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := guard.New(guard.Config{Keys: keys, Store: store, Hold: time.Minute})
	pt, _ := g.PrepareTicket(tk)
	pt2, _ := g2.PrepareTicket(tk)
	req := &caveat.Request{Tool: "read_file", Op: "invoke", Paths: []string{"/a"}, Args: []byte("digest-1")}
	call := func(g *guard.Guard, pt *guard.PreparedTicket, r *caveat.Request, key string) guard.Decision {
		t.Helper()
		d, err := g.VerifyPreparedCall(ctx, pt, r, t0, guard.CallOptions{Operation: key})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var first guard.Decision
	spent := func(want uint64) {
		t.Helper()
		u, err := store.Spent(ctx, first.BlockIDs[0], first.Budgets)
		if err != nil || u[0].Spent != want {
			t.Fatalf("spent %v %v, want %d", u, err, want)
		}
	}
	first = call(g, pt, req, "op-1")
	if !first.Allowed || first.Replayed || first.Operation != "op-1" || first.Claim != guard.ClaimNew {
		t.Fatalf("first call: %+v", first)
	}
	if d := call(g2, pt2, req, "op-1"); d.Allowed || d.Claim != guard.ClaimInFlight || d.Refusals[0].Check != guard.CheckOperation {
		t.Fatalf("repeat in flight: %+v", d)
	}
	result := []byte(`{"content":[{"type":"text","text":"a"}]}`)
	if kept, err := g.FinishOperation(ctx, &first, result, t0); err != nil || !kept {
		t.Fatalf("finish: %v %v", kept, err)
	}
	if err := g.Settle(ctx, &first, guard.Capture, t0); err != nil {
		t.Fatal(err)
	}
	spent(1)
	for _, h := range []struct {
		g  *guard.Guard
		pt *guard.PreparedTicket
	}{{g, pt}, {g2, pt2}} {
		d := call(h.g, h.pt, req, "op-1")
		if !d.Replayed || !bytes.Equal(d.Result, result) || d.Request != first.Request || d.Claim != guard.ClaimReplay {
			t.Fatalf("repeat: %+v", d)
		}
		if err := h.g.Settle(ctx, &d, guard.Capture, t0); err == nil {
			t.Fatal("a replayed decision settled")
		}
	}
	spent(1)
	other := &caveat.Request{Tool: "read_file", Op: "invoke", Paths: []string{"/a"}, Args: []byte("digest-2")}
	if d := call(g, pt, other, "op-1"); d.Allowed || d.Claim != guard.ClaimMismatch || !strings.Contains(d.Refusals[0].Reason, "another request") {
		t.Fatalf("changed request: %+v", d)
	}
	spent(1)

	// Released: the call did not run, so the key is free again.
	r := call(g, pt, other, "op-2")
	if err := g.Settle(ctx, &r, guard.Release, t0); err != nil {
		t.Fatal(err)
	}
	if d := call(g, pt, other, "op-2"); !d.Allowed || d.Claim != guard.ClaimNew {
		t.Fatalf("after release: %+v", d)
	}
	// A call the ticket refuses claims no key.
	if d := call(g, pt, &caveat.Request{Tool: "write_file", Op: "invoke"}, "op-3"); d.Allowed || d.Claim != 0 {
		t.Fatalf("refused call: %+v", d)
	}
	if d := call(g, pt, other, "op-3"); !d.Allowed || d.Claim != guard.ClaimNew {
		t.Fatalf("key of a refused call: %+v", d)
	}
	if got := receiptKinds(t, log, path); got != "allowed,captured,replayed,refused,allowed,released,allowed,refused,allowed" {
		t.Fatalf("receipts %s", got)
	}
	f, _ := os.Open(path)
	defer f.Close()
	for e, err := range chain.Scan(f) {
		if err == nil && e.Record.Kind == chain.KindReplayed {
			if want := "operation op-1 replays request " + first.Request.String(); e.Record.Note != want || e.Record.Tool != "read_file" {
				t.Fatalf("replayed receipt %+v, want note %q", e.Record, want)
			}
		}
	}
	if _, err := g.VerifyPreparedCall(ctx, pt, req, t0, guard.CallOptions{Operation: "a b"}); err == nil {
		t.Fatal("a key with a space was taken")
	}
}

// TestOperationReplayRevoked: a repeat of a ticket revoked since its first
// call is refused as revoked, not replayed.
func TestOperationReplayRevoked(t *testing.T) {
	tk, keys := fixture(t)
	ctx := context.Background()
	g, _ := guard.New(guard.Config{Keys: keys, Hold: time.Minute})
	req := readFile()
	d, err := g.VerifyCall(ctx, tk, req, t0, guard.CallOptions{Operation: "k"})
	if err != nil || !d.Allowed {
		t.Fatal(err, d.Refusals)
	}
	g.FinishOperation(ctx, &d, []byte("r"), t0)
	if err := g.Revoke(ctx, tk, t0); err != nil {
		t.Fatal(err)
	}
	d, err = g.VerifyCall(ctx, tk, req, t0, guard.CallOptions{Operation: "k"})
	if err != nil || d.Replayed || d.Allowed || d.Refusals[0].Reason != "block 0 is revoked" {
		t.Fatalf("%v %+v", err, d)
	}
}

// TestOperationWaiting: a keyed call refused for want of an approval is
// listed as waiting, and its approved retry under the key runs.
func TestOperationWaiting(t *testing.T) {
	tk, keys, x := approved(t)
	ctx := context.Background()
	store := guard.NewMemoryStore()
	g, _ := guard.New(guard.Config{Keys: keys, Store: store, Hold: time.Minute})
	req := readFile()
	d, err := g.VerifyCall(ctx, tk, req, t0, guard.CallOptions{Operation: "k"})
	if err != nil || d.Allowed {
		t.Fatalf("without the discharge: %v %+v", err, d)
	}
	ops, err := store.Operations(ctx, d.BlockIDs[0], t0)
	if err != nil || len(ops) != 1 || ops[0].State != guard.OperationWaiting {
		t.Fatalf("operations %+v %v", ops, err)
	}
	d, err = g.VerifyCall(ctx, tk, withDischarge(x), t0, guard.CallOptions{Operation: "k"})
	if err != nil || !d.Allowed || d.Claim != guard.ClaimNew {
		t.Fatalf("approved retry: %v %+v", err, d)
	}
}
