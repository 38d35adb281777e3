package dpop_test

import (
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"

	"github.com/tickettool/tickettool/dpop"
)

func TestHolderSignature(t *testing.T) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		k, err := dpop.NewKey(alg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := dpop.NewHolderSigner(k)
		if err != nil {
			t.Fatal(err)
		}
		msg := []byte("rebind me")
		for range 20 { // ECDSA signatures are randomised: several tries hit both S halves
			sig, err := s.Sign(msg)
			if err != nil {
				t.Fatal(err)
			}
			jkt, err := dpop.VerifyHolderSignature(s.PublicJWK(), msg, sig)
			if err != nil || string(jkt) != string(s.Thumbprint()) {
				t.Fatalf("%s: %v", alg, err)
			}
			bad := append([]byte(nil), sig...)
			bad[0] ^= 1
			if _, err := dpop.VerifyHolderSignature(s.PublicJWK(), msg, bad); !errors.Is(err, dpop.ErrHolderSignature) {
				t.Fatalf("%s: flipped signature: %v", alg, err)
			}
			if _, err := dpop.VerifyHolderSignature(s.PublicJWK(), []byte("other"), sig); err == nil {
				t.Fatalf("%s: signature over another message accepted", alg)
			}
			if alg == "ES256" { // the high-S twin of a valid signature is refused
				n := k.(*ecdsa.PrivateKey).Curve.Params().N
				sv := new(big.Int).SetBytes(sig[32:])
				high := append([]byte(nil), sig[:32]...)
				high = append(high, new(big.Int).Sub(n, sv).FillBytes(make([]byte, 32))...)
				if _, err := dpop.VerifyHolderSignature(s.PublicJWK(), msg, high); err == nil {
					t.Fatal("high-S signature accepted")
				}
			}
		}
		priv, _ := dpop.MarshalPrivateJWK(k)
		if _, err := dpop.VerifyHolderSignature(priv, msg, nil); err == nil {
			t.Fatalf("%s: private JWK accepted", alg)
		}
	}
}
