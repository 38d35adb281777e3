package token_test

import (
	"bytes"
	"testing"
	"testing/cryptotest"

	"github.com/tickettool/tickettool/token"
)

// TestGenerateKeyFollowsCryptoRand: GenerateKey, Mint and Attenuate take
// no randomness (issue #17); they draw from crypto/rand, so
// testing/cryptotest.SetGlobalRandom makes them reproducible.
func TestGenerateKeyFollowsCryptoRand(t *testing.T) {
	for _, mode := range []token.Mode{token.ModeHMAC, token.ModeEd25519} {
		gen := func(seed uint64) []byte {
			cryptotest.SetGlobalRandom(t, seed)
			k, err := token.GenerateKey("root", mode)
			if err != nil {
				t.Fatal(err)
			}
			return chainOf(t, k, []string{"tools=read_file"}, []string{"paths=src/"}).Encode()
		}
		a, b, c := gen(1), gen(1), gen(2)
		if !bytes.Equal(a, b) {
			t.Fatalf("%v: the same crypto/rand stream gave different tickets", mode)
		}
		if bytes.Equal(a, c) {
			t.Fatalf("%v: another crypto/rand stream gave the same ticket", mode)
		}
	}
}
