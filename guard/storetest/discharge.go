package storetest

import (
	"errors"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// testDischarges: a used discharge's budgets (keyed by its id, spec/FORMAT.md
// §7) are charged with the ticket's in one step, a one-shot discharge
// admits one call whichever handle asks, a revoked discharge id refuses
// like a revoked block (its index after the blocks'), and a budget keyed by
// an id that is neither a block of the chain nor a used discharge is
// invalid.
func testDischarges(t *testing.T, f Factory) {
	open := f(t)
	s1, s2 := open(t), open(t)
	c, now := Chain("d", 2), Base()
	dids := Chain("discharges", 2)
	ticket := Calls(c, 0, 10)
	once := verify.Budget{Block: 1, Kind: caveat.Calls, Key: dids[0], Calls: 1}
	a := Admission(c, now, ticket, once)
	a.Discharges = dids[:1]
	wantAdmitted(t, s1, a)
	b := Admission(c, now, ticket, once)
	b.Discharges = dids[:1]
	wantRefused(t, s2, b, guard.Exhausted, 1)
	wantSpent(t, s1, c[0], []verify.Budget{ticket, once}, 1, 1)

	// Another discharge of the same approval has its own budget.
	other := verify.Budget{Block: 1, Kind: caveat.Calls, Key: dids[1], Calls: 1}
	d := Admission(c, now, ticket, other)
	d.Discharges = dids[1:2]
	wantAdmitted(t, s2, d)

	if err := s1.Revoke(ctx, guard.Revocation{Family: c[0], Blocks: dids[1:2]}, now); err != nil {
		t.Fatal(err)
	}
	e := Admission(c, now, ticket)
	e.Discharges = dids[:2]
	wantRefused(t, s2, e, guard.Revoked, len(c)+1)
	wantAdmitted(t, s2, Admission(c, now, ticket)) // the ticket itself is not revoked

	bad := Admission(c, now, ticket, once) // the key is no used discharge's
	if _, err := s1.Admit(ctx, bad); !errors.Is(err, guard.ErrInvalid) {
		t.Fatalf("a budget keyed by an unused discharge id: %v, want ErrInvalid", err)
	}
}
