package verify_test

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// sameButIDs fails t unless a decision made with NoBlockIDs (got) is the
// full one (want) but for its ids: none when nothing needed them (need
// false), all of them otherwise.
func sameButIDs(t interface {
	Helper()
	Fatalf(string, ...any)
}, got, want verify.Decision, need bool) {
	t.Helper()
	ids := got.BlockIDs
	got.BlockIDs = want.BlockIDs
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("NoBlockIDs changed the decision:\n%+v\nwant\n%+v", got, want)
	}
	switch {
	case need && !reflect.DeepEqual(ids, want.BlockIDs):
		t.Fatalf("ids needed: got %v, want %v", ids, want.BlockIDs)
	case !need && len(ids) != 0:
		t.Fatalf("ids computed though nothing needed them: %v", ids)
	}
}

// TestPropNoBlockIDs: NoBlockIDs changes nothing in a decision but its
// ids, which are still computed when a budget or the revoked set needs
// them.
func TestPropNoBlockIDs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k, keys := genKey(t)
		tk, err := token.Mint(k, genCaveats(t, "b0"), nil)
		if err != nil {
			t.Skip()
		}
		if a, err := tk.Attenuate(genCaveats(t, "b1"), nil); err == nil && rapid.Bool().Draw(t, "attenuate?") {
			tk = a
		}
		tk, dis := genApprovals(t, tk)
		r := genRequest(t)
		r.Discharges = dis
		opts := verify.Options{}
		need := false
		if rapid.Bool().Draw(t, "revoked?") {
			opts.Revoked, need = verify.RevokedSet{}, true
		}
		for _, b := range tk.UnverifiedBlocks() {
			for _, c := range b.Caveats {
				need = need || c.Kind == caveat.Calls || c.Kind == caveat.Total
			}
		}
		want, err1 := verify.Verify(tk, r, keys, t0, &opts)
		opts.NoBlockIDs = true
		got, err2 := verify.Verify(tk, r, keys, t0, &opts)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		sameButIDs(t, got, want, need && len(want.BlockIDs) > 0)
	})
}

// TestNoBlockIDsRebinding: a rebinding block's holder signature covers the
// previous block's id, so NoBlockIDs still computes the ids of a rebound
// ticket and decides it as without.
func TestNoBlockIDsRebinding(t *testing.T) {
	alice := newHolder(t, key.ES256, "alice")
	bob := newHolder(t, key.Ed25519, "bob")
	for _, f := range fixtures(t) {
		// No calls or total caveat: only the rebinding needs the ids.
		plain, err := token.Mint(f.key, parse(t, "tools=read_file", "ops=delegate,invoke", "paths=src/",
			"hosts=*.example.org", "until=2026-11-30T13:00:00Z"), nil)
		if err != nil {
			t.Fatal(err)
		}
		bound, err := plain.Attenuate([]caveat.Caveat{bind(t, alice)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rebound, err := bound.Attenuate([]caveat.Caveat{bind(t, bob)}, &token.Options{Holder: alice.key})
		if err != nil {
			t.Fatal(err)
		}
		r := boundRequest(bob.proof(t, rebound, "b1"))
		want, _ := verify.Verify(rebound, r, f.keys, t0, nil)
		got, _ := verify.Verify(rebound, r, f.keys, t0, &verify.Options{NoBlockIDs: true})
		if !want.Allowed {
			t.Fatalf("%s: %v", f.name, want.Refusals)
		}
		sameButIDs(t, got, want, true)
	}
}

// TestNoBlockIDsBudgets: budgets are keyed by block ids, so a ticket with
// calls caveats gets its ids under NoBlockIDs, and a ticket without any
// gets none, both deciding as without.
func TestNoBlockIDsBudgets(t *testing.T) {
	for _, f := range fixtures(t) {
		r := req("read_file", "src/discount/a", "https://a.example.org/")
		want, _ := verify.Verify(f.child, r, f.keys, t0, nil)
		got, _ := verify.Verify(f.child, r, f.keys, t0, &verify.Options{NoBlockIDs: true})
		if !want.Allowed || len(want.Budgets) != 2 {
			t.Fatalf("%s: %v, budgets %v", f.name, want.Refusals, want.Budgets)
		}
		sameButIDs(t, got, want, true)
		plain, err := token.Mint(f.key, parse(t, "tools=read_file", "paths=src/", "until=2026-11-30T13:00:00Z"), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _ = verify.Verify(plain, r, f.keys, t0, nil)
		got, _ = verify.Verify(plain, r, f.keys, t0, &verify.Options{NoBlockIDs: true})
		if !want.Allowed {
			t.Fatalf("%s: %v", f.name, want.Refusals)
		}
		sameButIDs(t, got, want, false)
	}
}
