package chain

import (
	"bytes"
	"testing"
	"testing/cryptotest"
)

// TestGenerateKeyFollowsCryptoRand: GenerateKey takes no randomness
// (issue #17); it draws from crypto/rand, so
// testing/cryptotest.SetGlobalRandom makes it reproducible.
func TestGenerateKeyFollowsCryptoRand(t *testing.T) {
	for _, alg := range []Alg{AlgEd25519, AlgHMACSHA256} {
		gen := func(seed uint64) *Key {
			cryptotest.SetGlobalRandom(t, seed)
			k, err := GenerateKey(alg, "example.com/receipts")
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		a, b, c := gen(1), gen(1), gen(2)
		if a.KeyHash() != b.KeyHash() || !bytes.Equal(a.PublicKey(), b.PublicKey()) {
			t.Fatalf("%v: the same crypto/rand stream gave different keys", alg)
		}
		if a.KeyHash() == c.KeyHash() {
			t.Fatalf("%v: another crypto/rand stream gave the same key", alg)
		}
	}
}
