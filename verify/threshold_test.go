package verify_test

import (
	"reflect"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// trio returns the approvers alice, bob and carol, and bob2, another key
// under bob's key id.
func trio(t fataler) (alice, bob, carol, bob2 *key.Signing) {
	t.Helper()
	s := func(id, seed string) *key.Signing {
		k, err := fixedkey.Signing(key.Ed25519, id, seed)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	return s("alice", "approver alice"), s("bob", "approver bob"), s("carol", "approver carol"), s("bob", "approver bob 2")
}

// threshold returns need of the signers, under nonce.
func threshold(t fataler, need int, nonce byte, loc string, signers ...*key.Signing) caveat.Caveat {
	t.Helper()
	var ms []caveat.Member
	for _, s := range signers {
		ms = append(ms, caveat.Member{KeyID: s.ID(), Key: [32]byte(fixedkey.Public(s.Verifying()))})
	}
	return must(caveat.NewThreshold(need, ms, [16]byte{nonce}, loc))
}

// TestThreshold is sub-step 8 of step 6a (spec/FORMAT.md §7): k distinct
// approvers of the n, each discharge checked as a single approver's, and
// the reasons people read, byte for byte.
func TestThreshold(t *testing.T) {
	alice, bob, carol, bob2 := trio(t)
	f := fixtures(t)[1]
	tk := must(f.parent.Attenuate([]caveat.Caveat{threshold(t, 2, 1, "", alice, bob, carol)}, nil))
	withLoc := must(f.parent.Attenuate([]caveat.Caveat{threshold(t, 2, 1, "room 4", alice, bob, carol)}, nil))
	code := token.BindingCode(must(tk.Binding(1)))
	a, b, c := discharge(t, alice, tk, 1), discharge(t, bob, tk, 1), discharge(t, carol, tk, 1)
	a2 := discharge(t, alice, tk, 1, "until=2026-11-30T12:10:00Z", "tools=read_file")
	_, _, other := approvers(t)
	out := discharge(t, other, tk, 1)
	forged := discharge(t, bob2, tk, 1)
	wrongTool := discharge(t, bob, tk, 1, "until=2026-11-30T12:10:00Z", "tools=write_file")
	appr := ref{verify.CheckApproval, 1, caveat.Approval}
	for _, tc := range []struct {
		name    string
		tk      *token.Ticket
		dis     []*token.Discharge
		refs    []ref
		reasons []string // of the last refusal, when set
		used    int
	}{
		{"two", tk, []*token.Discharge{a, b}, nil, nil, 2},
		{"two reversed", tk, []*token.Discharge{c, a}, nil, nil, 2},
		{"three", tk, []*token.Discharge{a, b, c}, nil, nil, 3},
		{"k-1", tk, []*token.Discharge{a}, []ref{appr},
			[]string{"approvals required: 2 of 3: approved by alice; waiting for one of bob, carol (code " + code + ")"}, 0},
		{"none", tk, nil, []ref{appr}, []string{"approvals required: 2 of 3: waiting for two of alice, bob, carol (code " + code + ")"}, 0},
		{"location", withLoc, nil, []ref{appr},
			[]string{"approvals required: 2 of 3: waiting for two of alice, bob, carol at room 4 (code " + token.BindingCode(must(withLoc.Binding(1))) + ")"}, 0},
		{"same key", tk, []*token.Discharge{a, a2}, []ref{appr, appr},
			[]string{"more than one discharge from alice", "approvals required: 2 of 3: waiting for two of alice, bob, carol (code " + code + ")"}, 0},
		{"same key beside bob", tk, []*token.Discharge{a, b, a2}, []ref{appr, appr},
			[]string{"more than one discharge from alice", "approvals required: 2 of 3: approved by bob; waiting for one of alice, carol (code " + code + ")"}, 0},
		{"outsider", tk, []*token.Discharge{a, out}, []ref{appr, appr},
			[]string{"discharge is from another approver key id", "approvals required: 2 of 3: approved by alice; waiting for one of bob, carol (code " + code + ")"}, 0},
		{"forged", tk, []*token.Discharge{forged, a}, []ref{appr, appr},
			[]string{"discharge signature does not verify", "approvals required: 2 of 3: approved by alice; waiting for one of bob, carol (code " + code + ")"}, 0},
		{"discharge caveat", tk, []*token.Discharge{a, wrongTool}, []ref{{verify.CheckApproval, 1, caveat.Tools}, appr}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := req("read_file", "src/x", "https://api.example.org/x")
			r.Discharges = texts(tc.dis...)
			d, err := decideAll(t, tc.tk, r, f.keys, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := refsOf(d); !reflect.DeepEqual(got, tc.refs) {
				t.Fatalf("refusals %+v, want %+v (%+v)", got, tc.refs, d.Refusals)
			}
			for i, why := range tc.reasons {
				if got := d.Refusals[i].Reason; got != why {
					t.Errorf("reason %d %q, want %q", i, got, why)
				}
			}
			if d.Allowed && len(d.Discharges) != tc.used {
				t.Errorf("used %d discharges, want %d", len(d.Discharges), tc.used)
			}
		})
	}
}

// TestThresholdMissing: the refused threshold for a caller that tells the
// agent how many approvals it has and needs.
func TestThresholdMissing(t *testing.T) {
	alice, bob, carol, _ := trio(t)
	f := fixtures(t)[1]
	tk := must(f.parent.Attenuate([]caveat.Caveat{threshold(t, 2, 1, "", alice, bob, carol)}, nil))
	r := req("read_file", "src/x", "https://api.example.org/x")
	r.Discharges = texts(discharge(t, alice, tk, 1))
	d, err := decideAll(t, tk, r, f.keys, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	bind := must(tk.Binding(1))
	want := []verify.Missing{{Block: 1, Need: 2, Approved: []string{"alice"}, Waiting: []string{"bob", "carol"}, Code: token.BindingCode(bind), Binding: bind}}
	if got := verify.MissingApproval(&d); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// TestRestated: an approval restated in a later block (same nonce) is in
// force, its discharges bound to the block of the first; a wider one is
// an attenuation refusal; a discharge bound to the restating block
// matches nothing.
func TestRestated(t *testing.T) {
	alice, bob, carol, _ := trio(t)
	f := fixtures(t)[1]
	tk := must(f.parent.Attenuate([]caveat.Caveat{threshold(t, 2, 1, "", alice, bob, carol)}, nil))
	a, b, c := discharge(t, alice, tk, 1), discharge(t, bob, tk, 1), discharge(t, carol, tk, 1)
	raised := must(tk.Attenuate([]caveat.Caveat{threshold(t, 3, 1, "", alice, bob, carol)}, nil))
	removed := must(tk.Attenuate([]caveat.Caveat{threshold(t, 2, 1, "", alice, bob)}, nil))
	second := must(tk.Attenuate([]caveat.Caveat{threshold(t, 1, 2, "", alice, bob, carol)}, nil))
	appr := ref{verify.CheckApproval, 1, caveat.Approval}
	for _, tc := range []struct {
		name string
		tk   *token.Ticket
		dis  []*token.Discharge
		refs []ref
	}{
		{"raised: two", raised, []*token.Discharge{a, b}, []ref{appr}},
		{"raised: three", raised, []*token.Discharge{a, b, c}, nil},
		{"removed: alice and bob", removed, []*token.Discharge{a, b}, nil},
		{"removed: carol is an outsider", removed, []*token.Discharge{a, c}, []ref{appr, appr}},
		{"bound to the restatement", raised, []*token.Discharge{a, b, c, discharge(t, alice, raised, 2)}, []ref{{verify.CheckApproval, -1, 0}}},
		{"new nonce: a second approval", second, []*token.Discharge{a, b}, []ref{{verify.CheckApproval, 2, caveat.Approval}}},
		{"new nonce: both met", second, []*token.Discharge{a, b, discharge(t, carol, second, 2)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := req("read_file", "src/x", "https://api.example.org/x")
			r.Discharges = texts(tc.dis...)
			d, err := decideAll(t, tc.tk, r, f.keys, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := refsOf(d); !reflect.DeepEqual(got, tc.refs) {
				t.Fatalf("refusals %+v, want %+v (%+v)", got, tc.refs, d.Refusals)
			}
		})
	}
	for _, wide := range []caveat.Caveat{
		threshold(t, 1, 1, "", alice, bob, carol), // lowered
		threshold(t, 1, 1, "", alice),             // lowered, to one
	} {
		if _, err := tk.Attenuate([]caveat.Caveat{wide}, nil); err == nil {
			t.Errorf("Attenuate with %v: no error", wide)
		}
	}
}
