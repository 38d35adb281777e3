package verify_test

import (
	"context"
	"errors"
	"github.com/tickettool/tickettool/internal/wire"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

type holder struct {
	key *key.Holder
	jkt string
}

func newHolder(t *testing.T, alg key.Alg, seed string) holder {
	t.Helper()
	k, err := fixedkey.Holder(alg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return holder{k, k.Thumbprint()}
}

const htm, htu = "POST", "mcp://workspace/read_file"

func (h holder) proof(t *testing.T, tk *token.Ticket, jti string) *caveat.HolderProof {
	t.Helper()
	p, err := dpop.Make(h.key, htm, htu, dpop.MakeOptions{AccessToken: tk.String(), IssuedAt: t0, JTI: jti})
	if err != nil {
		t.Fatal(err)
	}
	return &caveat.HolderProof{Proof: p, Method: htm, URI: htu}
}

func boundRequest(p *caveat.HolderProof) *caveat.Request {
	r := req("read_file", "src/discount/a", "https://a.example.org/")
	r.Holder = p
	return r
}

func bind(t *testing.T, h holder) caveat.Caveat {
	c, err := caveat.NewHolder(h.jkt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBoundTicket(t *testing.T) {
	alice := newHolder(t, key.ES256, "alice")
	mallory := newHolder(t, key.Ed25519, "mallory")
	for _, f := range fixtures(t) {
		bound, err := f.child.Attenuate([]caveat.Caveat{bind(t, alice)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		other, _ := f.child.Attenuate([]caveat.Caveat{must(caveat.NewCalls(1)), bind(t, alice)}, nil)
		cases := []struct {
			name    string
			p       *caveat.HolderProof
			allowed bool
			why     string
		}{
			{"valid proof", alice.proof(t, bound, "j1"), true, ""},
			{"no proof", nil, false, "a DPoP proof by that key is required"},
			{"proof by another key", mallory.proof(t, bound, "j2"), false, "jkt"},
			{"proof for another ticket", alice.proof(t, other, "j3"), false, "ath"},
			{"wrong htu", &caveat.HolderProof{Proof: alice.proof(t, bound, "j4").Proof, Method: htm, URI: "mcp://workspace/write_file"}, false, "htu"},
			{"wrong htm", &caveat.HolderProof{Proof: alice.proof(t, bound, "j5").Proof, Method: "GET", URI: htu}, false, "htm"},
		}
		for _, c := range cases {
			d, err := verify.Verify(bound, boundRequest(c.p), f.keys, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != c.allowed {
				t.Errorf("%s %s: allowed=%v %v", f.name, c.name, d.Allowed, d.Refusals)
				continue
			}
			if c.allowed {
				if d.Proof == nil || d.Proof.JTI == "" {
					t.Errorf("%s %s: no checked proof in the decision", f.name, c.name)
				}
				continue
			}
			r := d.Refusals[len(d.Refusals)-1]
			if r.Check != verify.CheckDPoP || r.Block != 2 || !strings.Contains(r.Reason, c.why) {
				t.Errorf("%s %s: refusal %+v, want dpop at block 2 mentioning %q", f.name, c.name, r, c.why)
			}
		}
		// Policy: a verifier may require binding.
		d, _ := verify.Verify(f.child, req("read_file", "src/discount/a", "https://a.example.org/"), f.keys, t0, &verify.Options{RequireHolder: true})
		if d.Allowed || d.Refusals[0].Check != verify.CheckPolicy {
			t.Errorf("%s: bearer ticket under RequireHolder: %+v", f.name, d.Refusals)
		}
	}
}

func TestRebinding(t *testing.T) {
	alice := newHolder(t, key.ES256, "alice")
	bob := newHolder(t, key.Ed25519, "bob")
	mallory := newHolder(t, key.ES256, "mallory")
	for _, f := range fixtures(t) {
		bound, err := f.child.Attenuate([]caveat.Caveat{bind(t, alice)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Without the current holder's key, Attenuate refuses up front.
		if _, err := bound.Attenuate([]caveat.Caveat{bind(t, mallory)}, nil); !errors.Is(err, token.ErrHolder) {
			t.Errorf("%s: rebind without key: %v", f.name, err)
		}
		if _, err := bound.Attenuate([]caveat.Caveat{bind(t, mallory)}, &token.Options{Holder: mallory.key}); !errors.Is(err, token.ErrHolder) {
			t.Errorf("%s: rebind with the thief's key: %v", f.name, err)
		}
		// Alice hands the work to Bob.
		rebound, err := bound.Attenuate([]caveat.Caveat{bind(t, bob)}, &token.Options{Holder: alice.key})
		if err != nil {
			t.Fatalf("%s: honest rebind: %v", f.name, err)
		}
		if d, _ := verify.Verify(rebound, boundRequest(bob.proof(t, rebound, "b1")), f.keys, t0, nil); !d.Allowed {
			t.Errorf("%s: bob's proof refused: %v", f.name, d.Refusals)
		}
		// The last holder is the one that must prove possession.
		if d, _ := verify.Verify(rebound, boundRequest(alice.proof(t, rebound, "a1")), f.keys, t0, nil); d.Allowed {
			t.Errorf("%s: alice's proof accepted after rebinding to bob", f.name)
		}
		// Binding is never loosened: the ticket stays bound.
		loose, err := rebound.Attenuate([]caveat.Caveat{must(caveat.NewCalls(1))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := verify.Verify(loose, req("read_file", "src/discount/a", "https://a.example.org/"), f.keys, t0, nil); d.Allowed {
			t.Errorf("%s: bound ticket allowed without a proof", f.name)
		}

		// Mallory steals the bound ticket and appends a block by hand.
		r := boundRequest(nil)
		unsigned := appendByHand(t, bound, bind(t, mallory))
		r.Holder = mallory.proof(t, unsigned, "m1")
		if d, _ := verify.Verify(unsigned, r, f.keys, t0, nil); d.Allowed || d.Refusals[0].Check != verify.CheckAttenuation || d.Refusals[0].Block != 3 {
			t.Errorf("%s: rebinding without a signature: %+v", f.name, d.Refusals)
		}
		selfSigned := appendRebindByHand(t, bound, mallory, bind(t, mallory))
		r.Holder = mallory.proof(t, selfSigned, "m2")
		if d, _ := verify.Verify(selfSigned, r, f.keys, t0, nil); d.Allowed || d.Refusals[0].Check != verify.CheckAttenuation || !strings.Contains(d.Refusals[0].Reason, "not by the current holder") {
			t.Errorf("%s: rebinding signed by the thief: %+v", f.name, d.Refusals)
		}
		// The same hand-made path with Alice's key verifies: the forgery
		// above failed for its signer, not for the helper.
		aliceSigned := appendRebindByHand(t, bound, alice, bind(t, bob))
		if d, _ := verify.Verify(aliceSigned, boundRequest(bob.proof(t, aliceSigned, "b2")), f.keys, t0, nil); !d.Allowed {
			t.Errorf("%s: hand-made honest rebind refused: %v", f.name, d.Refusals)
		}
		// A rebinding signature copied onto another chain fails: it covers
		// the id of the block before.
		w := unwireT(t, aliceSigned)
		if len(w.Holder) != 1 {
			t.Fatalf("%s: expected one holder signature", f.name)
		}
		// Alice's signature with one bit flipped is no signature.
		for i, sig := range w.Holder {
			w.Holder[i] = append([]byte(nil), sig...)
			w.Holder[i][len(sig)/2] ^= 1
		}
		data, err := wire.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		flipped, err := token.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := verify.Verify(flipped, boundRequest(bob.proof(t, flipped, "b3")), f.keys, t0, nil); d.Allowed ||
			d.Refusals[0].Check != verify.CheckAttenuation || !strings.Contains(d.Refusals[0].Reason, "rebinding signature") {
			t.Errorf("%s: rebinding with a flipped signature: %+v", f.name, d.Refusals)
		}
	}
}

func TestGuardReplay(t *testing.T) {
	alice := newHolder(t, key.Ed25519, "alice")
	for _, f := range fixtures(t) {
		bound, _ := f.child.Attenuate([]caveat.Caveat{bind(t, alice)}, nil)
		g, err := guard.New(guard.Config{Keys: f.keys})
		if err != nil {
			t.Fatal(err)
		}
		p := alice.proof(t, bound, "same-jti")
		if d, err := g.Verify(context.Background(), bound, boundRequest(p), t0); err != nil || !d.Allowed {
			t.Fatalf("%s: first use: %v %v", f.name, err, d.Refusals)
		}
		if d, _ := g.Verify(context.Background(), bound, boundRequest(p), t0.Add(time.Second)); d.Allowed || d.Refusals[0].Check != verify.CheckDPoP {
			t.Errorf("%s: replayed proof: %+v", f.name, d.Refusals)
		}
		// The same jti for another htu is another proof.
		p2, _ := dpop.Make(alice.key, htm, "mcp://workspace/list", dpop.MakeOptions{AccessToken: bound.String(), IssuedAt: t0, JTI: "same-jti"})
		r := boundRequest(&caveat.HolderProof{Proof: p2, Method: htm, URI: "mcp://workspace/list"})
		if d, _ := g.Verify(context.Background(), bound, r, t0); !d.Allowed {
			t.Errorf("%s: same jti, other htu: %v", f.name, d.Refusals)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
