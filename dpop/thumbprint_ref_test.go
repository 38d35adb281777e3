package dpop

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/jwk"
	"pgregory.net/rapid"
)

// thumbprintBoth returns the fast thumbprint and go-jose's of the public
// key made from seed (P-256 when ec, else Ed25519).
func thumbprintBoth(t testing.TB, seed []byte, ec bool) (string, string) {
	k := publicKey{Key: new(jwk.Key)}
	var pub any
	if ec {
		priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), seed)
		if err != nil {
			return "", "" // not a scalar in range: no key
		}
		raw, err := priv.PublicKey.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		copy(k.X[:], raw[1:33])
		copy(k.Y[:], raw[33:])
		k.alg, k.EC, pub = jose.ES256, &priv.PublicKey, &priv.PublicKey
	} else {
		k.Ed = ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
		copy(k.X[:], k.Ed)
		k.alg, pub = jose.EdDSA, k.Ed
	}
	ref, err := joseThumbprint(&jose.JSONWebKey{Key: pub})
	if err != nil {
		t.Fatalf("go-jose: %v", err)
	}
	return k.Thumbprint(), ref
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
