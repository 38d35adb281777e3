package verify_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// fataler is what testing.TB and *rapid.T share that the helpers use.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// approvers: the pricing lead, another key under the lead's key id, and
// another approver under its own id.
func approvers(t fataler) (lead, lead2, other *key.Signing) {
	t.Helper()
	var err error
	if lead, err = fixedkey.Signing(key.Ed25519, "pricing-lead", "approver"); err != nil {
		t.Fatal(err)
	}
	if lead2, err = fixedkey.Signing(key.Ed25519, "pricing-lead", "approver 2"); err != nil {
		t.Fatal(err)
	}
	if other, err = fixedkey.Signing(key.Ed25519, "other-lead", "approver"); err != nil {
		t.Fatal(err)
	}
	return lead, lead2, other
}

// approval returns the approval caveat naming signer, with location loc.
func approval(t fataler, signer *key.Signing, nonce byte, loc string) caveat.Caveat {
	t.Helper()
	a := caveat.Approver{KeyID: signer.ID(), Nonce: [16]byte{nonce}, Location: loc}
	copy(a.Key[:], fixedkey.Public(signer.Verifying()))
	return must(caveat.NewApproval(a))
}

// discharge approves block j of tk with signer and the caveats' texts.
func discharge(t testing.TB, signer *key.Signing, tk *token.Ticket, j int, texts ...string) *token.Discharge {
	t.Helper()
	b, err := tk.Binding(j)
	if err != nil {
		t.Fatal(err)
	}
	return dischargeFor(t, signer, b, texts...)
}

func dischargeFor(t testing.TB, signer *key.Signing, b [32]byte, texts ...string) *token.Discharge {
	t.Helper()
	if len(texts) == 0 {
		texts = []string{"until=2026-11-30T12:10:00Z"}
	}
	cs := parse(t, texts...)
	d, err := token.Approve(signer, b, cs, fixedkey.ApprovedAt(cs))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func texts(ds ...*token.Discharge) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// decideAll decides tk for r with Verify, VerifyText and a Prepared, and
// fails unless the three decide alike.
func decideAll(t testing.TB, tk *token.Ticket, r *caveat.Request, keys *token.Keyring, now time.Time, opts *verify.Options) (verify.Decision, error) {
	t.Helper()
	want, errW := verify.Verify(tk, r, keys, now, opts)
	var got verify.Decision
	errG := verify.VerifyText(&got, tk.String(), r, keys, now, opts)
	p, err := verify.Prepare(tk, keys, opts)
	if err != nil {
		t.Fatal(err)
	}
	prep, errP := p.Verify(r, now)
	if (errW == nil) != (errG == nil) || (errW == nil) != (errP == nil) ||
		errW != nil && (errW.Error() != errG.Error() || errW.Error() != errP.Error()) {
		t.Fatalf("errors differ: Verify %v, VerifyText %v, Prepared %v", errW, errG, errP)
	}
	if g := verify.Public(got); !reflect.DeepEqual(g, want) || !reflect.DeepEqual(prep, want) {
		t.Fatalf("decisions differ:\nVerify     %+v\nVerifyText %+v\nPrepared   %+v", want, g, prep)
	}
	if !reflect.DeepEqual(verify.MissingApproval(&want), verify.MissingApproval(&got)) {
		t.Fatalf("missing approvals differ: %v, %v", verify.MissingApproval(&want), verify.MissingApproval(&got))
	}
	return want, errW
}

type ref struct {
	check verify.Check
	block int
	kind  caveat.Kind
}

func refsOf(d verify.Decision) []ref {
	var out []ref
	for _, r := range d.Refusals {
		out = append(out, ref{r.Check, r.Block, r.Kind})
	}
	return out
}

// TestApprovals is step 6a of spec/FORMAT.md §7, case by case, in both
// modes and on the three paths (Verify, VerifyText, Prepared).
func TestApprovals(t *testing.T) {
	lead, lead2, other := approvers(t)
	const loc = "https://approve.example.com/"
	for _, f := range fixtures(t) {
		tk := must(f.parent.Attenuate([]caveat.Caveat{approval(t, lead, 1, loc)}, nil))
		sibling := must(token.Mint(f.key, f.parent.UnverifiedBlocks()[0].Caveats, nil))
		sibling = must(sibling.Attenuate([]caveat.Caveat{approval(t, lead, 1, loc)}, nil))
		later := must(tk.Attenuate(parse(t, "paths=src/discount/"), nil))
		noLoc := must(f.parent.Attenuate([]caveat.Caveat{approval(t, lead, 1, "")}, nil))
		bound := must(tk.Attenuate(parse(t, "holder=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), nil))
		good := discharge(t, lead, tk, 1)
		id := token.BlockID(good.ID())
		digest := make([]byte, 32)
		digest[0] = 7
		argsText := "args=" + strings.TrimPrefix(must(caveat.NewArgs(digest)).String(), "args=")
		type tc struct {
			name    string
			tk      *token.Ticket
			dis     []*token.Discharge
			now     time.Time
			opts    *verify.Options
			args    []byte
			path    string
			want    []ref
			reason  string // of the first refusal, when set
			used    int    // used discharges on an allowed request
			budgets int    // discharge budgets on an allowed request
		}
		A, U, N := caveat.Approval, caveat.Until, caveat.NotBefore
		cases := []tc{
			{name: "allowed", tk: tk, dis: []*token.Discharge{good}, used: 1},
			{name: "missing", tk: tk, want: []ref{{verify.CheckApproval, 1, A}},
				reason: "approval required from pricing-lead at " + loc + " (code " + token.BindingCode(must(tk.Binding(1))) + ")"},
			{name: "missing without location", tk: noLoc, want: []ref{{verify.CheckApproval, 1, A}},
				reason: "approval required from pricing-lead (code " + token.BindingCode(must(noLoc.Binding(1))) + ")"},
			{name: "two for one", tk: tk, dis: []*token.Discharge{good, discharge(t, lead2, tk, 1)}, want: []ref{{verify.CheckApproval, 1, A}},
				reason: "more than one discharge for this approval"},
			{name: "other key, same id", tk: tk, dis: []*token.Discharge{discharge(t, lead2, tk, 1)}, want: []ref{{verify.CheckApproval, 1, A}},
				reason: "discharge signature does not verify"},
			{name: "other key id", tk: tk, dis: []*token.Discharge{discharge(t, other, tk, 1)}, want: []ref{{verify.CheckApproval, 1, A}},
				reason: "discharge is from another approver key id"},
			{name: "sibling", tk: sibling, dis: []*token.Discharge{good},
				want: []ref{{verify.CheckApproval, 1, A}, {verify.CheckApproval, -1, 0}}},
			{name: "no approval, a discharge", tk: f.parent, dis: []*token.Discharge{good}, want: []ref{{verify.CheckApproval, -1, 0}},
				reason: "discharge 0 matches no approval of this ticket"},
			{name: "unmatched besides", tk: tk, dis: []*token.Discharge{discharge(t, lead, sibling, 1), good}, want: []ref{{verify.CheckApproval, -1, 0}},
				reason: "discharge 0 matches no approval of this ticket"},
			{name: "attenuated after", tk: later, dis: []*token.Discharge{good}, used: 1},
			{name: "attenuated after, refused by the later block", tk: later, dis: []*token.Discharge{good}, path: "src/refund/x",
				want: []ref{{verify.CheckCaveat, 2, caveat.Paths}}},
			{name: "expired", tk: tk, dis: []*token.Discharge{good}, now: t0.Add(10 * time.Minute), want: []ref{{verify.CheckApproval, 1, U}},
				reason: "discharge expired"},
			{name: "expired, within skew", tk: tk, dis: []*token.Discharge{good}, now: t0.Add(10 * time.Minute), opts: &verify.Options{Skew: time.Second}, used: 1},
			{name: "not yet", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=2026-11-30T12:10:00Z", "nbf=2026-11-30T12:01:00Z")},
				want: []ref{{verify.CheckApproval, 1, N}}},
			{name: "lifetime 24h", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=2026-12-01T12:00:00Z")}, used: 1},
			{name: "lifetime 24h and 1s", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=2026-12-01T12:00:01Z")},
				want: []ref{{verify.CheckApproval, 1, U}}, reason: "discharge lives too long"},
			{name: "lifetime over, at full precision", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=2026-12-01T12:00:00Z")},
				now: t0.Add(-time.Nanosecond), want: []ref{{verify.CheckApproval, 1, U}}},
			{name: "args", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", argsText)}, args: digest, used: 1},
			{name: "args differ", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", argsText)}, args: make([]byte, 32),
				want: []ref{{verify.CheckApproval, 1, caveat.Args}}},
			{name: "args absent", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", argsText)},
				want: []ref{{verify.CheckApproval, 1, caveat.Args}}},
			{name: "discharge tools", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", "tools=write_file")},
				want: []ref{{verify.CheckApproval, 1, caveat.Tools}}},
			{name: "discharge holder, unbound ticket", tk: tk,
				dis:  []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", "holder=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")},
				want: []ref{{verify.CheckApproval, 1, caveat.Holder}}},
			{name: "discharge holder, another holder", tk: bound,
				dis:  []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", "holder=BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")},
				want: []ref{{verify.CheckApproval, 1, caveat.Holder}, {verify.CheckDPoP, 2, caveat.Holder}}},
			{name: "discharge holder, the ticket's", tk: bound,
				dis:  []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", "holder=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")},
				want: []ref{{verify.CheckDPoP, 2, caveat.Holder}}},
			{name: "revoked discharge", tk: tk, dis: []*token.Discharge{good}, opts: &verify.Options{Revoked: verify.RevokedSet{id: {}}},
				want: []ref{{verify.CheckRevoked, 1, A}}},
			{name: "budgets", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=10m", "calls=1", "total=1USD")}, used: 1, budgets: 2},
			{name: "everything at once", tk: tk, dis: []*token.Discharge{discharge(t, lead, tk, 1, "until=2026-12-02T00:00:00Z", "nbf=2026-11-30T13:00:00Z", "tools=x")},
				want: []ref{{verify.CheckApproval, 1, N}, {verify.CheckApproval, 1, U}, {verify.CheckApproval, 1, caveat.Tools}}},
		}
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				now := c.now
				if now.IsZero() {
					now = t0
				}
				path := c.path
				if path == "" {
					path = "src/discount/x"
				}
				r := req("read_file", path, "https://api.example.org/x")
				r.Discharges, r.Args = texts(c.dis...), c.args
				if c.budgets > 0 {
					r.Cost = &caveat.Amount{Micros: 1, Currency: "USD"}
				}
				d, err := decideAll(t, c.tk, r, f.keys, now, c.opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := refsOf(d); !reflect.DeepEqual(got, c.want) {
					t.Fatalf("refusals %v, want %v", d.Refusals, c.want)
				}
				if c.reason != "" && d.Refusals[0].Reason != c.reason {
					t.Errorf("reason %q, want %q", d.Refusals[0].Reason, c.reason)
				}
				if d.Allowed != (len(c.want) == 0) {
					t.Fatalf("allowed %v", d.Allowed)
				}
				if !d.Allowed {
					// A discharge that failed a check is not used.
					for _, r := range d.Refusals {
						if r.Block == 1 && (r.Check == verify.CheckApproval || r.Check == verify.CheckRevoked) && len(d.Discharges) > 0 {
							t.Fatalf("used %+v though refused: %v", d.Discharges, d.Refusals)
						}
					}
					return
				}
				if len(d.Discharges) != c.used {
					t.Fatalf("used %+v, want %d", d.Discharges, c.used)
				}
				for _, u := range d.Discharges {
					x := c.dis[u.Index]
					if u.Block != 1 || u.KeyID != "pricing-lead" || u.ID != token.BlockID(x.ID()) {
						t.Errorf("used %+v", u)
					}
				}
				var nd int
				for _, b := range d.Budgets {
					if b.Key == token.BlockID(c.dis[0].ID()) {
						nd++
						if b.Block != 1 {
							t.Errorf("discharge budget %+v: block, want 1", b)
						}
					} else if nd > 0 {
						t.Errorf("a ticket budget after a discharge's: %+v", d.Budgets)
					}
				}
				if nd != c.budgets {
					t.Errorf("discharge budgets %d, want %d: %+v", nd, c.budgets, d.Budgets)
				}
			})
		}
	}
}

// TestMissingApproval: the refused approvals, for a caller that tells the
// agent whom to ask, without parsing a reason.
func TestMissingApproval(t *testing.T) {
	lead, _, other := approvers(t)
	f := fixtures(t)[1]
	tk := must(token.Mint(f.key, append(f.parent.UnverifiedBlocks()[0].Caveats, approval(t, lead, 1, "room 4")), nil))
	tk = must(tk.Attenuate([]caveat.Caveat{approval(t, other, 2, "")}, nil))
	r := req("read_file", "src/x", "https://api.example.org/x")
	d, err := decideAll(t, tk, r, f.keys, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []verify.Missing{
		{Block: 0, KeyID: "pricing-lead", Need: 1, Location: "room 4", Code: token.BindingCode(must(tk.Binding(0))), Binding: must(tk.Binding(0))},
		{Block: 1, KeyID: "other-lead", Need: 1, Code: token.BindingCode(must(tk.Binding(1))), Binding: must(tk.Binding(1))},
	}
	if got := verify.MissingApproval(&d); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// Both discharges, in either order: allowed, used blocks ascending.
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		ds := [2]*token.Discharge{discharge(t, lead, tk, 0), discharge(t, other, tk, 1)}
		r.Discharges = texts(ds[order[0]], ds[order[1]])
		d, err := decideAll(t, tk, r, f.keys, t0, nil)
		if err != nil || !d.Allowed || len(d.Discharges) != 2 || d.Discharges[0].Block != 0 || d.Discharges[1].Block != 1 ||
			d.Discharges[0].Index != order[0] || verify.MissingApproval(&d) != nil {
			t.Fatalf("%v: %v %+v %+v", order, err, d.Refusals, d.Discharges)
		}
	}
	// Validate has no request: approvals hold.
	if v, err := verify.Validate(tk, f.keys, t0, nil); err != nil || !v.Allowed {
		t.Fatalf("Validate: %v %v", err, v.Refusals)
	}
}

// TestDischargesMalformed: a discharge that does not decode, or more than
// eight, is malformed input (spec/FORMAT.md §7 step 1): an error naming
// the discharge's index, on every path, whatever the ticket.
func TestDischargesMalformed(t *testing.T) {
	lead, _, _ := approvers(t)
	f := fixtures(t)[0]
	tk := must(f.parent.Attenuate([]caveat.Caveat{approval(t, lead, 1, "")}, nil))
	good := discharge(t, lead, tk, 1).String()
	nine := make([]string, 9)
	for i := range nine {
		nine[i] = good
	}
	for _, c := range []struct {
		name string
		dis  []string
		want string
	}{
		{"ticket text", []string{good, tk.String()}, "verify: discharge 1: malformed discharge"},
		{"ticket bytes", []string{token.DischargePrefix + strings.TrimPrefix(tk.String(), token.Prefix)}, "verify: discharge 0: malformed discharge"},
		{"trailing junk", []string{good + "A"}, "verify: discharge 0: malformed discharge"},
		{"nine", nine, "verify: malformed discharge: a request carries at most 8 discharges"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := req("read_file", "src/x", "https://api.example.org/x")
			r.Discharges = c.dis
			_, err := decideAll(t, tk, r, f.keys, t0, nil)
			var de *verify.DischargeError
			if !errors.Is(err, token.ErrMalformed) || !errors.As(err, &de) || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want %q…", err, c.want)
			}
			// Even a ticket under no known key: step 1 comes first.
			if _, err := verify.Verify(tk, r, must(token.NewKeyring()), t0, nil); !errors.Is(err, token.ErrMalformed) {
				t.Fatalf("no key: %v", err)
			}
		})
	}
	// Eight is the limit, not a malformation (the extra ones are unmatched).
	r := req("read_file", "src/x", "https://api.example.org/x")
	r.Discharges = nine[:8]
	if d, err := decideAll(t, tk, r, f.keys, t0, nil); err != nil || len(d.Refusals) != 1 {
		t.Fatalf("eight: %v %v", err, d.Refusals)
	}
}
