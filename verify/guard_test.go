package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// These tests of guard.Guard live beside verify's fixtures.

// TestGuardFamilyBudget: the parent allows 10 calls and every ticket
// attenuated from it shares them; the child's own 3 calls are its own.
func TestGuardFamilyBudget(t *testing.T) {
	for _, f := range fixtures(t) {
		g, _ := guard.New(guard.Config{Keys: f.keys})
		r := req("read_file", "src/discount/a", "https://a.example.org/")
		sibling, err := f.parent.Attenuate(parse(t, "calls=8"), nil)
		if err != nil {
			t.Fatal(err)
		}
		allowed := 0
		for _, tk := range []*token.Ticket{f.child, f.child, f.child, f.child, sibling, sibling, sibling, sibling, sibling, sibling, sibling, sibling, f.parent, f.parent} {
			d, err := g.Verify(context.Background(), tk, r, t0)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed {
				allowed++
			}
		}
		// child: 3 of 4 (its own budget); sibling + parent share what is
		// left of the family's 10: 7.
		if allowed != 10 {
			t.Errorf("%s: %d calls allowed across the family, want 10", f.name, allowed)
		}
		d, _ := g.Verify(context.Background(), f.child, r, t0)
		if d.Allowed || d.Refusals[0].Kind != caveat.Calls {
			t.Errorf("%s: exhausted budget refusal %+v", f.name, d.Refusals)
		}
	}
}

// TestGuardRaceForLastUnit: of many concurrent calls racing for a budget
// of 3, exactly 3 are granted.
func TestGuardRaceForLastUnit(t *testing.T) {
	f := fixtures(t)[0]
	g, _ := guard.New(guard.Config{Keys: f.keys})
	r := req("read_file", "src/discount/a", "https://a.example.org/")
	var granted atomic.Int32
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, err := g.Verify(context.Background(), f.child, r, t0); err == nil && d.Allowed {
				granted.Add(1)
			}
		}()
	}
	wg.Wait()
	if granted.Load() != 3 {
		t.Fatalf("%d calls granted, want exactly 3", granted.Load())
	}
}

func TestGuardTotalBudgetAndRefusedNotCharged(t *testing.T) {
	f := fixtures(t)[1]
	tk, err := f.child.Attenuate(parse(t, "total=1USD", "cost=0.6USD"), nil)
	if err != nil {
		t.Fatal(err)
	}
	store := guard.NewMemoryStore()
	g, _ := guard.New(guard.Config{Keys: f.keys, Store: store})
	call := func(path, cost string) bool {
		r := req("read_file", path, "https://a.example.org/")
		a, err := caveat.ParseAmount(cost)
		if err != nil {
			t.Fatal(err)
		}
		r.Cost = &a
		d, err := g.Verify(context.Background(), tk, r, t0)
		if err != nil {
			t.Fatal(err)
		}
		return d.Allowed
	}
	if !call("src/discount/a", "0.5USD") {
		t.Fatal("first call refused")
	}
	if call("src/refund/a", "0.4USD") { // refused by paths: not charged
		t.Fatal("sibling path allowed")
	}
	if !call("src/discount/a", "0.4USD") {
		t.Fatal("second call refused though 0.9 <= 1")
	}
	if call("src/discount/a", "0.2USD") {
		t.Fatal("call past the total allowed")
	}
	d, _ := verify.Verify(tk, &caveat.Request{}, f.keys, t0, nil)
	var total []verify.Budget
	for _, b := range d.Budgets {
		if b.Kind == caveat.Total {
			total = append(total, b)
		}
	}
	use, err := store.Spent(context.Background(), d.BlockIDs[0], total)
	if err != nil || len(use) != 1 || use[0].Spent != 900000 {
		t.Fatalf("spent %+v (%v), want 900000 micros", use, err)
	}
}

func TestGuardReceipts(t *testing.T) {
	f := fixtures(t)[0]
	key, err := fixedkey.Signing(key.Ed25519, "receipts", "receipts")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "receipts.log")
	log, err := chain.Open(path, key, "test")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := guard.New(guard.Config{Keys: f.keys, Receipts: log})
	if err := g.RecordIntent("upgrade pricing deps", t0); err != nil {
		t.Fatal(err)
	}
	if err := g.RecordMinted(f.parent, t0); err != nil {
		t.Fatal(err)
	}
	if err := g.RecordDelegated(f.child, t0); err != nil {
		t.Fatal(err)
	}
	g.Verify(context.Background(), f.child, req("read_file", "src/discount/a", "https://a.example.org/"), t0)
	g.Verify(context.Background(), f.child, req("read_file", "src/discount-other/a", "https://a.example.org/"), t0)
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	sum, err := chain.Verify(path, key.Verifying(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Count != 5 {
		t.Fatalf("%d receipts, want 5", sum.Count)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var kinds []string
	var last chain.Record
	for e, err := range chain.Scan(file) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Record.Kind.String())
		last = e.Record
	}
	if got := strings.Join(kinds, ","); got != "intent,minted,delegated,allowed,refused" {
		t.Errorf("receipt kinds %s", got)
	}
	if last.Check != "caveat" || last.Caveat != "paths" || last.Block != 1 || !strings.Contains(last.Reason, "src/discount-other/a") {
		t.Errorf("refusal receipt %+v", last)
	}
}

// TestGuardRecordsHostileRequests: a request with invalid UTF-8, huge
// fields and hundreds of subjects is still refused with a receipt, not an
// error that would leave the decision unrecorded.
func TestGuardRecordsHostileRequests(t *testing.T) {
	f := fixtures(t)[0]
	key, _ := fixedkey.Signing(key.HMACSHA256, "receipts", "hostile")
	path := filepath.Join(t.TempDir(), "r.log")
	log, err := chain.Open(path, key, "test")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := guard.New(guard.Config{Keys: f.keys, Receipts: log})
	r := req(strings.Repeat("\xff", 5000), "", "")
	for i := range 300 {
		r.Paths = append(r.Paths, "src/\xfe"+strings.Repeat("x", i*10))
	}
	d, err := g.Verify(context.Background(), f.child, r, t0)
	if err != nil {
		t.Fatalf("hostile request could not be recorded: %v", err)
	}
	if d.Allowed {
		t.Fatal("hostile request allowed")
	}
	log.Close()
	if _, err := chain.Verify(path, key.Verifying(), "test"); err != nil {
		t.Fatal(err)
	}
}
