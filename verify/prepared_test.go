package verify_test

import (
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Property: a Prepared decides exactly as Verify and Validate do, for any
// ticket (bound or not, sealed or not, under its key, another key of the
// same id, or none), policy, revoked set, time and request, and whatever
// time it was prepared at — so caching the request- and time-independent
// checks weakens none of them.
func TestPropPreparedIsVerify(t *testing.T) {
	holderKey, err := fixedkey.Holder(key.Ed25519, "prepared holder")
	if err != nil {
		t.Fatal(err)
	}
	allowed, usedApprovals := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		sk, keys := genKey(t)
		b0 := genCaveats(t, "b0")
		if rapid.Bool().Draw(t, "budget and intent") {
			b0 = append(b0, must(caveat.NewCalls(3)), must(caveat.NewTotal(caveat.Amount{Micros: 5, Currency: "USD"})),
				must(caveat.NewIntent("props")))
		}
		tk, err := token.Mint(sk, b0, nil)
		if err != nil {
			t.Skip("caveats refused")
		}
		if rapid.Bool().Draw(t, "attenuate") {
			cs := genCaveats(t, "b1")
			if rapid.Bool().Draw(t, "bind") {
				cs = append(cs, must(caveat.NewHolder(holderKey.Thumbprint())))
			}
			if c, err := tk.Attenuate(cs, nil); err == nil {
				tk = c
			}
		}
		tk, dis := genApprovals(t, tk)
		if rapid.Bool().Draw(t, "seal") {
			tk, _ = tk.Seal()
		}
		switch rapid.IntRange(0, 7).Draw(t, "keyring") {
		case 0: // another key of the same id: the chain does not verify
			other, err := fixedkey.Signing(sk.Alg(), "k", "another secret")
			if err != nil {
				t.Fatal(err)
			}
			keys, _ = token.NewKeyring(other.Verifying())
		case 1: // no key of the ticket's id
			other, _ := fixedkey.Signing(sk.Alg(), "x", "props")
			keys, _ = token.NewKeyring(other.Verifying())
		}
		// Each policy applies once in four draws, so that some calls pass.
		sometimes := func(label string) bool { return rapid.IntRange(0, 3).Draw(t, label) == 0 }
		opts := &verify.Options{
			Skew:          time.Duration(rapid.IntRange(0, 2).Draw(t, "skew")) * time.Minute,
			RequireExpiry: sometimes("require expiry"),
			RequireHolder: sometimes("require holder"),
		}
		if sometimes("max lifetime?") {
			opts.MaxLifetime = time.Duration(rapid.IntRange(1, 3).Draw(t, "max lifetime")) * time.Hour
		}
		if sometimes("modes") {
			opts.Modes = []key.Alg{rapid.SampledFrom([]key.Alg{key.HMACSHA256, key.Ed25519}).Draw(t, "mode")}
		}
		revoked := verify.RevokedSet{}
		if len(dis) > 0 && sometimes("revoke a discharge") {
			if x, err := token.ParseDischarge(dis[0]); err == nil {
				revoked[token.BlockID(x.ID())] = struct{}{}
			}
		}
		opts.Revoked = revoked
		at := func(label string) time.Time {
			return t0.Add(time.Duration(rapid.IntRange(-90, 90).Draw(t, label)) * time.Minute)
		}
		p, err := verify.Prepare(tk, keys, opts)
		if err != nil {
			t.Fatal(err)
		}
		if p.Ticket() != tk {
			t.Fatal("Ticket is not the prepared ticket")
		}
		// Revoke after preparing: the set is consulted per call.
		if v, err := verify.Validate(tk, keys, t0, nil); err == nil && len(v.BlockIDs) > 0 && sometimes("revoke") {
			revoked[v.BlockIDs[rapid.IntRange(0, len(v.BlockIDs)-1).Draw(t, "revoked block")]] = struct{}{}
		}
		var all []caveat.Caveat
		for _, b := range tk.UnverifiedBlocks() {
			all = append(all, b.Caveats...)
		}
		for range 8 {
			now := at("now")
			r := genRequestFor(t, all)
			r.Discharges = dis
			if rapid.Bool().Draw(t, "proof") {
				jti := rapid.SampledFrom([]string{"j1", ""}).Draw(t, "jti")
				proof, err := dpop.Make(holderKey, "POST", "mcp://s/a", dpop.MakeOptions{AccessToken: tk.String(), IssuedAt: at("iat"), JTI: jti})
				if err != nil {
					t.Fatal(err)
				}
				r.Holder = &caveat.HolderProof{Proof: proof, Method: "POST", URI: rapid.SampledFrom([]string{"mcp://s/a", "mcp://s/b"}).Draw(t, "uri")}
			}
			want, errW := verify.Verify(tk, r, keys, now, opts)
			got, errG := p.Verify(r, now)
			if (errW == nil) != (errG == nil) || !reflect.DeepEqual(want, got) {
				t.Fatalf("Verify and Prepared.Verify differ:\n%+v\n%+v", want, got)
			}
			if want.Allowed {
				allowed++
				if len(want.Discharges) > 0 {
					usedApprovals++
				}
			}
			wantV, _ := verify.Validate(tk, keys, now, opts)
			if gotV := p.Validate(now); !reflect.DeepEqual(wantV, gotV) {
				t.Fatalf("Validate and Prepared.Validate differ:\n%+v\n%+v", wantV, gotV)
			}
		}
	})
	t.Logf("%d allowed decisions compared, %d with used discharges", allowed, usedApprovals)
	// About a third of the cases are allowed; fewer than 5 of 100 would
	// mean the generator stopped reaching allowed decisions.
	if allowed < 5 {
		t.Fatalf("only %d allowed decisions were compared", allowed)
	}
}

func TestPreparedMalformedCall(t *testing.T) {
	sk, err := fixedkey.Signing(key.HMACSHA256, "k", "props")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := token.NewKeyring(sk.Verifying())
	tk, err := token.Mint(sk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Prepare(nil, keys, nil); err == nil {
		t.Error("Prepare(nil ticket) gave no error")
	}
	if _, err := verify.Prepare(&token.Ticket{}, keys, nil); err == nil {
		t.Error("Prepare(zero ticket) gave no error")
	}
	if _, err := verify.Prepare(tk, nil, nil); err == nil {
		t.Error("Prepare(nil keyring) gave no error")
	}
	p, err := verify.Prepare(tk, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Verify(nil, t0); err == nil {
		t.Error("Prepared.Verify(nil request) gave no error")
	}
}

// Forged tickets whose chain verifies but whose blocks widen or rebind
// without the holder's signature: a Prepared refuses them as Verify does.
func TestPreparedRefusesForgedBlocks(t *testing.T) {
	alice := newHolder(t, key.Ed25519, "alice")
	mallory := newHolder(t, key.Ed25519, "mallory")
	for _, f := range fixtures(t) {
		bound, err := f.child.Attenuate([]caveat.Caveat{bind(t, alice)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cases := map[string]*token.Ticket{
			"widening paths":    appendByHand(t, f.child, must(caveat.NewPaths("/"))),
			"rebind by a thief": appendRebindByHand(t, bound, mallory, bind(t, mallory)),
			"rebind unsigned":   appendByHand(t, bound, bind(t, mallory)),
		}
		for name, tk := range cases {
			r := boundRequest(mallory.proof(t, tk, "j1"))
			want, _ := verify.Verify(tk, r, f.keys, t0, nil)
			p, err := verify.Prepare(tk, f.keys, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := p.Verify(r, t0)
			if want.Allowed || len(want.Refusals) == 0 || want.Refusals[0].Check != verify.CheckAttenuation {
				t.Fatalf("%s %s: Verify did not refuse the block: %+v", f.name, name, want)
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s %s: Verify and Prepared.Verify differ:\n%+v\n%+v", f.name, name, want, got)
			}
		}
	}
}
