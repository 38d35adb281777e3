package verify_test

import (
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// WithHolderKey: a caller holding the current holder's key decides
// without a proof; any other key, an unbound ticket and a key the
// DPoP allow-list refuses are errors; and without it a bound ticket
// still needs its proof.
func TestWithHolderKey(t *testing.T) {
	alice := newHolder(t, key.ES256, "alice")
	bob := newHolder(t, key.Ed25519, "bob")
	for _, f := range fixtures(t) {
		bound := must(f.child.Attenuate([]caveat.Caveat{bind(t, alice)}, nil))
		rebound := must(bound.Attenuate([]caveat.Caveat{bind(t, bob)}, &token.Options{Holder: alice.key}))
		noProof := boundRequest(nil)

		p := must(verify.Prepare(bound, f.keys, nil))
		if d, _ := p.Verify(noProof, t0); d.Allowed || d.Refusals[0].Check != verify.CheckDPoP {
			t.Errorf("%s: a bound ticket without a proof and without the key: %+v", f.name, d.Refusals)
		}
		own := must(p.WithHolderKey(alice.key))
		if d, _ := own.Verify(noProof, t0); !d.Allowed {
			t.Errorf("%s: the holder's own key, no proof: refused: %v", f.name, d.Refusals)
		}
		// Everything else is still each call's.
		if d, _ := own.Verify(req("write_file", "src/discount/a", "https://a.example.org/"), t0); d.Allowed {
			t.Errorf("%s: the holder's own key allowed a call its caveats refuse", f.name)
		}
		if _, err := p.WithHolderKey(bob.key); err == nil {
			t.Errorf("%s: another key than the holder's was taken", f.name)
		}
		if _, err := p.WithHolderKey(nil); err == nil {
			t.Errorf("%s: a nil key was taken", f.name)
		}
		// After rebinding to bob, alice's key is no longer the holder's.
		pr := must(verify.Prepare(rebound, f.keys, nil))
		if _, err := pr.WithHolderKey(alice.key); err == nil {
			t.Errorf("%s: the previous holder's key was taken after rebinding", f.name)
		}
		if d, _ := must(pr.WithHolderKey(bob.key)).Verify(noProof, t0); !d.Allowed {
			t.Errorf("%s: the new holder's own key refused: %v", f.name, d.Refusals)
		}
		// An unbound ticket has no holder key to hold.
		if _, err := must(verify.Prepare(f.child, f.keys, nil)).WithHolderKey(alice.key); err == nil {
			t.Errorf("%s: an unbound ticket took a holder key", f.name)
		}
		// The DPoP allow-list applies to the key as it would to its proofs.
		edOnly := &verify.Options{DPoP: verify.DPoPOptions{Algorithms: []verify.Algorithm{"EdDSA"}}}
		if _, err := must(verify.Prepare(bound, f.keys, edOnly)).WithHolderKey(alice.key); err == nil {
			t.Errorf("%s: an ES256 key taken under an EdDSA-only policy", f.name)
		}
		// An Ed25519 key signs under either name (RFC 9864): a policy of
		// one of them takes it, an ES256-only one does not.
		for _, names := range [][]verify.Algorithm{{"Ed25519"}, {"EdDSA"}, {"ES256"}} {
			o := &verify.Options{DPoP: verify.DPoPOptions{Algorithms: names}}
			_, err := must(verify.Prepare(rebound, f.keys, o)).WithHolderKey(bob.key)
			if (err == nil) != (names[0] != "ES256") {
				t.Errorf("%s: an Ed25519 key under the policy %v: %v", f.name, names, err)
			}
		}
	}
}
