package dpop_test

import (
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
)

// Verify against bare go-jose parse+verify of the same proof, for profiles.
// Ratios between them are measured as interleaved pairs by TestPairs
// (pairs_test.go), not by comparing two benchmarks run apart.

func benchProof(b *testing.B, alg string) (string, dpop.Expectations) {
	k := newKey(b, alg, 31)
	proof := mustMake(b, k, "POST", testURI, dpop.MakeOptions{Nonce: "nonce-1", AccessToken: "access-token"})
	return proof, dpop.Expectations{
		Method: "POST", URI: testURI, Nonce: "nonce-1", AccessToken: "access-token",
		Thumbprint: thumbprintOf(b, k),
	}
}

func benchCheck(b *testing.B, alg string) {
	proof, exp := benchProof(b, alg)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dpop.Verify(proof, exp, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

func benchGoJose(b *testing.B, alg string) {
	proof, _ := benchProof(b, alg)
	algs := []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA}
	b.ReportAllocs()
	for b.Loop() {
		jws, err := jose.ParseSignedCompact(proof, algs)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := jws.Verify(jws.Signatures[0].Protected.JSONWebKey); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckES256(b *testing.B)             { benchCheck(b, "ES256") }
func BenchmarkGoJoseParseVerifyES256(b *testing.B) { benchGoJose(b, "ES256") }
func BenchmarkCheckEdDSA(b *testing.B)             { benchCheck(b, "EdDSA") }
func BenchmarkGoJoseParseVerifyEdDSA(b *testing.B) { benchGoJose(b, "EdDSA") }
