package guard_test

import (
	"context"
	"os"
	"reflect"
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

// approved returns a ticket (calls=5) whose block 1 needs the pricing
// lead's approval, and a discharge of it with the caveats' texts.
func approved(t *testing.T, texts ...string) (*token.Ticket, *token.Keyring, *token.Discharge) {
	t.Helper()
	tk, keys := fixture(t, "calls=5")
	lead, err := fixedkey.Signing(key.Ed25519, "pricing-lead", "guard approver")
	if err != nil {
		t.Fatal(err)
	}
	a := caveat.Approver{KeyID: lead.ID(), Nonce: [16]byte{3}}
	copy(a.Key[:], fixedkey.Public(lead.Verifying()))
	ap, err := caveat.NewApproval(a)
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.Attenuate([]caveat.Caveat{ap}, nil); err != nil {
		t.Fatal(err)
	}
	bind, err := tk.Binding(1)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := caveat.ParseAll(append([]string{"until=10m"}, texts...), t0)
	if err != nil {
		t.Fatal(err)
	}
	x, err := token.Approve(lead, bind, cs, t0)
	if err != nil {
		t.Fatal(err)
	}
	return tk, keys, x
}

func withDischarge(x *token.Discharge) *caveat.Request {
	r := readFile()
	r.Discharges = []string{x.String()}
	return r
}

// A one-shot discharge admits one call: its calls budget, keyed by its id,
// is charged with the ticket's in the same admission, and the second call
// is refused naming the approval's block; the ticket's own budget was
// charged once. A refused call charges neither.
func TestGuardOneShotDischarge(t *testing.T) {
	tk, keys, x := approved(t, "calls=1")
	store := guard.NewMemoryStore()
	g, err := guard.New(guard.Config{Keys: keys, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Refused by the ticket (another tool): nothing charged.
	r := withDischarge(x)
	r.Tool = "write_file"
	if d, err := g.Verify(ctx, tk, r, t0); err != nil || d.Allowed {
		t.Fatalf("write_file: %v %v", err, d.Refusals)
	}
	d, err := g.Verify(ctx, tk, withDischarge(x), t0)
	if err != nil || !d.Allowed {
		t.Fatalf("first call: %v %v", err, d.Refusals)
	}
	if len(d.Discharges) != 1 || d.Discharges[0].ID != token.BlockID(x.ID()) {
		t.Fatalf("used %+v", d.Discharges)
	}
	d, err = g.Verify(ctx, tk, withDischarge(x), t0.Add(time.Second))
	if err != nil || d.Allowed || len(d.Refusals) != 1 {
		t.Fatalf("second call: %v %v", err, d.Refusals)
	}
	if r := d.Refusals[0]; r.Check != verify.CheckApproval || r.Block != 1 || r.Kind != caveat.Calls {
		t.Fatalf("second call refused by %+v", r)
	}
	u, err := store.Spent(ctx, d.BlockIDs[0], d.Budgets)
	if err != nil || len(u) != 2 || u[0].Spent != 1 || u[1].Spent != 1 {
		t.Fatalf("spent %+v %v", u, err)
	}
}

// RevokeDischarge refuses every later call presenting the discharge, as
// revoked at the approval's block; the ticket is not revoked. A discharge
// of another ticket is not revoked through this one.
func TestGuardRevokeDischarge(t *testing.T) {
	tk, keys, x := approved(t)
	g, err := guard.New(guard.Config{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if d, err := g.Verify(ctx, tk, withDischarge(x), t0); err != nil || !d.Allowed {
		t.Fatalf("before: %v %v", err, d.Refusals)
	}
	_, _, other := approved(t) // another mint: another ticket id, another binding
	if err := g.RevokeDischarge(ctx, tk, other, t0); err == nil {
		t.Fatal("revoked a discharge of another ticket")
	}
	if err := g.RevokeDischarge(ctx, tk, x, t0); err != nil {
		t.Fatal(err)
	}
	d, err := g.Verify(ctx, tk, withDischarge(x), t0)
	if err != nil || d.Allowed || len(d.Refusals) != 1 {
		t.Fatalf("after: %v %v", err, d.Refusals)
	}
	if r := d.Refusals[0]; r.Check != verify.CheckRevoked || r.Block != 1 || r.Kind != caveat.Approval {
		t.Fatalf("refused by %+v", r)
	}
}

// TestReceiptApprovals: the receipt of an allowed call records, per used
// discharge, the approver's key id and the DID (chain/FORMAT.md §1.2,
// field 17); a refused call's receipt names none (the second use of a
// one-shot discharge), nor does an allowed call without approvals. The
// log verifies.
func TestReceiptApprovals(t *testing.T) {
	tk, keys, x := approved(t, "calls=1")
	plain, _ := fixture(t)
	log, path := receiptLog(t)
	g, err := guard.New(guard.Config{Keys: keys, Receipts: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, c := range []struct {
		tk      *token.Ticket
		req     *caveat.Request
		allowed bool
	}{{tk, withDischarge(x), true}, {tk, withDischarge(x), false}, {plain, readFile(), true}} {
		if d, err := g.Verify(ctx, c.tk, c.req, t0); err != nil || d.Allowed != c.allowed {
			t.Fatalf("call %d: %v %v", i, err, d.Refusals)
		}
	}
	log.Close()
	want := [][]chain.Approval{{{KeyID: "pricing-lead", ID: x.ID()}}, nil, nil}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	i := 0
	for e, err := range chain.Scan(f) {
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e.Record.Approvals, want[i]) {
			t.Errorf("record %d (%s): approvals %+v, want %+v", i, e.Record.Kind, e.Record.Approvals, want[i])
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("%d records", i)
	}
	rk, _ := fixedkey.Signing(key.Ed25519, "receipts", "guard receipts")
	if _, err := chain.Verify(path, rk.Verifying(), "test"); err != nil {
		t.Fatal(err)
	}
}
