package dpop

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"pgregory.net/rapid"
)

// thumbprintBoth returns the fast thumbprint and go-jose's of the public
// key made from seed (P-256 when ec, else Ed25519).
func thumbprintBoth(t testing.TB, seed []byte, ec bool) (string, string) {
	var pub any
	if ec {
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), seed)
		if err != nil {
			return "", "" // not a scalar in range: no key
		}
		pub = &k.PublicKey
	} else {
		pub = ed25519.NewKeyFromSeed(seed).Public()
	}
	jwk := &jose.JSONWebKey{Key: pub}
	fast, err1 := thumbprint(jwk)
	ref, err2 := joseThumbprint(jwk)
	if err1 != nil || err2 != nil {
		t.Fatalf("thumbprint: %v; go-jose: %v", err1, err2)
	}
	return fast, ref
}

// TestThumbprintIsGoJose: the hand-written RFC 7638 thumbprint is
// go-jose's for every P-256 and Ed25519 key, including coordinates with
// leading zero bytes (which a big.Int encoding would drop).
func TestThumbprintIsGoJose(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(rt, "seed")
		ec := rapid.Bool().Draw(rt, "ec")
		if fast, ref := thumbprintBoth(t, seed, ec); fast != ref {
			rt.Fatalf("thumbprint %s, go-jose %s", fast, ref)
		}
	})
	// An RSA key, which no proof may carry, falls back to go-jose.
	if got, err := thumbprint(&jose.JSONWebKey{Key: "not a key"}); err == nil {
		t.Errorf("a non-key has thumbprint %q", got)
	}
}

func FuzzThumbprint(f *testing.F) {
	f.Add(make([]byte, 32), true)
	f.Add([]byte("tickettool dpop pairs, key seed."), false)
	f.Fuzz(func(t *testing.T, seed []byte, ec bool) {
		if len(seed) != 32 {
			return
		}
		if fast, ref := thumbprintBoth(t, seed, ec); fast != ref {
			t.Fatalf("thumbprint %s, go-jose %s", fast, ref)
		}
	})
}
