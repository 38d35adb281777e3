package token_test

import (
	"errors"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// approval returns an approval caveat of the approver with id "lead",
// nonce n.
func approval(t testing.TB, n byte) caveat.Caveat {
	t.Helper()
	lead, err := fixedkey.Signing(key.Ed25519, "lead", "approver lead")
	if err != nil {
		t.Fatal(err)
	}
	a := caveat.Approver{KeyID: "lead", Nonce: [16]byte{n}}
	copy(a.Key[:], fixedkey.Public(lead.Verifying()))
	c, err := caveat.NewApproval(a)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMaxApprovals: a ticket carries at most token.MaxApprovals approval
// caveats (spec/FORMAT.md §6): Attenuate refuses to make a fifth, and a
// ticket with five does not decode, in either parse path.
func TestMaxApprovals(t *testing.T) {
	for _, root := range []*key.Signing{hmacKey(t, "root"), edKey(t, "root")} {
		t.Run(root.Alg().String(), func(t *testing.T) {
			tk, err := token.Mint(root, []caveat.Caveat{approval(t, 0)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for n := byte(1); n < token.MaxApprovals; n++ {
				if tk, err = tk.Attenuate([]caveat.Caveat{approval(t, n)}, nil); err != nil {
					t.Fatalf("approval %d: %v", n+1, err)
				}
			}
			if _, err := token.Parse(tk.String()); err != nil {
				t.Fatalf("%d approvals: %v", token.MaxApprovals, err)
			}
			_, err = tk.Attenuate([]caveat.Caveat{approval(t, token.MaxApprovals)}, nil)
			var te *token.Error
			if !errors.Is(err, token.ErrTooLarge) || !errors.As(err, &te) || te.Kind != caveat.Approval {
				t.Fatalf("a fifth approval: %v, want ErrTooLarge naming approval", err)
			}
			// A fifth through the wire, past Attenuate: malformed, naming
			// the block that holds it.
			if tk, err = tk.Attenuate([]caveat.Caveat{must(caveat.NewCalls(5))}, nil); err != nil {
				t.Fatal(err)
			}
			w := unwire(t, tk)
			var b wire.Block
			if err := wire.Unmarshal(w.Blocks[4], &b, wire.TicketLimits()); err != nil {
				t.Fatal(err)
			}
			b.Caveats[uint64(caveat.Approval)] = approvalValue(t, approverKey(t), 9)
			w.Blocks[4] = mustMarshal(t, b)
			_, err = token.Decode(mustMarshal(t, w))
			if !errors.Is(err, token.ErrMalformed) || !errors.As(err, &te) || te.Block != 4 {
				t.Fatalf("five approvals decoded: %v, want malformed block 4", err)
			}
		})
	}
}

// approverKey is an Ed25519 approver for approvalValue.
func approverKey(t testing.TB) *key.Signing { return edKey(t, "lead") }

// TestUnverifiedApprovals: every approval caveat, blocks ascending, with
// its approver and its block's binding; none for a ticket without.
func TestUnverifiedApprovals(t *testing.T) {
	tk, err := token.Mint(hmacKey(t, "root"), []caveat.Caveat{approval(t, 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.Attenuate([]caveat.Caveat{must(caveat.NewCalls(5))}, nil); err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.Attenuate([]caveat.Caveat{approval(t, 2)}, nil); err != nil {
		t.Fatal(err)
	}
	got := tk.UnverifiedApprovals()
	if len(got) != 2 || got[0].Block != 0 || got[1].Block != 2 || got[1].Approver.Nonce[0] != 2 {
		t.Fatalf("approvals %+v", got)
	}
	for _, a := range got {
		if b, err := tk.Binding(a.Block); err != nil || b != a.Binding {
			t.Errorf("block %d: binding %x, want %x (%v)", a.Block, a.Binding, b, err)
		}
	}
	plain, err := token.Mint(hmacKey(t, "root"), []caveat.Caveat{must(caveat.NewCalls(1))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.UnverifiedApprovals(); len(got) != 0 {
		t.Errorf("approvals of a ticket without: %+v", got)
	}
}

// TestUnverifiedApprovalsRestated: an approval restated in a later block
// (same nonce) is listed once, at the block of its first appearance and
// with that block's binding, as the restatement says.
func TestUnverifiedApprovalsRestated(t *testing.T) {
	ms := []caveat.Member{{KeyID: "alice"}, {KeyID: "bob"}, {KeyID: "carol"}}
	for i := range ms {
		copy(ms[i].Key[:], approverPublic(t, edKey(t, ms[i].KeyID)))
	}
	first := must(caveat.NewThreshold(2, ms, [16]byte{7}, ""))
	tk, err := token.Mint(hmacKey(t, "root"), []caveat.Caveat{must(caveat.NewCalls(5))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.Attenuate([]caveat.Caveat{first}, nil); err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.Attenuate([]caveat.Caveat{must(caveat.NewThreshold(3, ms, [16]byte{7}, ""))}, nil); err != nil {
		t.Fatal(err)
	}
	got := tk.UnverifiedApprovals()
	if len(got) != 1 || got[0].Block != 1 || got[0].Approver.Threshold() != 3 || got[0].Binding != must(tk.Binding(1)) {
		t.Fatalf("approvals %+v", got)
	}
	if _, err := tk.Attenuate([]caveat.Caveat{must(caveat.NewThreshold(2, ms, [16]byte{7}, ""))}, nil); err == nil {
		t.Error("a restatement lowering the threshold attenuates")
	}
}
