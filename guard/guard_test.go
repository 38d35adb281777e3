package guard_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// fixture mints an HMAC ticket with a calls budget.
func fixture(t *testing.T, caveats ...string) (*token.Ticket, *token.Keyring) {
	t.Helper()
	key, err := fixedkey.Signing(key.HMACSHA256, "root", "guard root")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(key.Verifying())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := caveat.ParseAll(append([]string{"tools=read_file", "until=2026-11-30T13:00:00Z"}, caveats...), t0)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := token.Mint(key, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk, keys
}

func readFile() *caveat.Request { return &caveat.Request{Tool: "read_file", Op: "invoke"} }

// receiptLog opens a new receipt log in a temporary directory.
func receiptLog(t *testing.T) (*chain.Log, string) {
	t.Helper()
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "guard receipts")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.log")
	log, err := chain.Open(path, rk, "test")
	if err != nil {
		t.Fatal(err)
	}
	return log, path
}

// receiptKinds closes log and returns the kinds of its records, joined
// by commas.
func receiptKinds(t *testing.T, log *chain.Log, path string) string {
	t.Helper()
	log.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kinds []string
	for e, err := range chain.Scan(f) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Record.Kind.String())
	}
	return strings.Join(kinds, ",")
}

// failingStore fails every step, as a store that is down does.
type failingStore struct{ guard.Store }

func (failingStore) Admit(context.Context, guard.Admission) (guard.Verdict, error) {
	return guard.Verdict{}, guard.Failed("test", "admit", errors.New("connection refused"))
}

// TestStoreFailureRefuses: a store that fails refuses the call, and the
// refusal says the store failed; nothing is allowed on a failure.
func TestStoreFailureRefuses(t *testing.T) {
	tk, keys := fixture(t, "calls=5")
	g, err := guard.New(guard.Config{Keys: keys, Store: failingStore{}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Verify(context.Background(), tk, readFile(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed || len(d.Refusals) != 1 || d.Refusals[0].Check != guard.CheckStore ||
		!strings.Contains(d.Refusals[0].Reason, "the store failed") {
		t.Fatalf("decision %+v", d.Decision)
	}
}

// TestHoldReleaseCapture: with a hold, an allowed call reserves its budget;
// releasing it gives the call back, capturing keeps it; each settlement is
// a receipt.
func TestHoldReleaseCapture(t *testing.T) {
	tk, keys := fixture(t, "calls=1")
	log, path := receiptLog(t)
	ctx := context.Background()
	g, err := guard.New(guard.Config{Keys: keys, Receipts: log, Hold: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.Verify(ctx, tk, readFile(), t0)
	if err != nil || !d.Allowed {
		t.Fatalf("first call: %v %v", err, d.Refusals)
	}
	if d2, _ := g.Verify(ctx, tk, readFile(), t0); d2.Allowed {
		t.Fatal("a held reservation did not count against the budget")
	}
	if err := g.Settle(ctx, &d, guard.Release, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	d3, err := g.Verify(ctx, tk, readFile(), t0.Add(2*time.Second))
	if err != nil || !d3.Allowed {
		t.Fatalf("after a release: %v %v", err, d3.Refusals)
	}
	if err := g.Settle(ctx, &d3, guard.Capture, t0.Add(3*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := g.Settle(ctx, &d3, guard.Release, t0.Add(4*time.Second)); err == nil {
		t.Fatal("a captured call was released")
	}
	if d4, _ := g.Verify(ctx, tk, readFile(), t0.Add(5*time.Second)); d4.Allowed {
		t.Fatal("a captured call was given back")
	}
	if got := receiptKinds(t, log, path); got != "allowed,refused,released,allowed,captured,refused" {
		t.Errorf("receipts %s", got)
	}
}

// TestRevokeRefusesFamily: after Revoke returns, no guard on the store
// allows the revoked ticket or one attenuated from it.
func TestRevokeRefusesFamily(t *testing.T) {
	tk, keys := fixture(t, "ops=invoke,delegate")
	cs, _ := caveat.ParseAll([]string{"calls=3"}, t0)
	child, err := tk.Attenuate(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := guard.NewMemoryStore()
	ctx := context.Background()
	a, _ := guard.New(guard.Config{Keys: keys, Store: store})
	b, _ := guard.New(guard.Config{Keys: keys, Store: store})
	if d, _ := b.Verify(ctx, child, readFile(), t0); !d.Allowed {
		t.Fatalf("before revoking: %v", d.Refusals)
	}
	if err := a.Revoke(ctx, tk, t0); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*token.Ticket{tk, child} {
		d, _ := b.Verify(ctx, x, readFile(), t0)
		if d.Allowed || d.Refusals[0].Check != verify.CheckRevoked || d.Refusals[0].Block != 0 {
			t.Errorf("after revoking: %+v", d.Refusals)
		}
	}
}

// TestNewRefusesNoBlockIDs: a guard whose verify skipped block ids could
// look up no revocation in its store (every revoked ticket would pass),
// so New refuses the option.
func TestNewRefusesNoBlockIDs(t *testing.T) {
	_, keys := fixture(t)
	if _, err := guard.New(guard.Config{Keys: keys, Options: verify.Options{NoBlockIDs: true}}); err == nil {
		t.Fatal("New accepted NoBlockIDs")
	}
}
