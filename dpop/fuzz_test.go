package dpop_test

import (
	"testing"
	"time"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
)

type fuzzSeed struct {
	proof, method, uri string
	now                int64
}

const rfcJKT = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" // RFC 9449 §6.1

// fuzzKeys are the keys of the made seeds, so the fuzz target knows the
// thumbprints an accepted proof may have.
func fuzzKeys(t testing.TB) []string {
	return []string{rfcJKT, thumbprintOf(t, newKey(t, "ES256", 21)), thumbprintOf(t, newKey(t, "EdDSA", 22))}
}

// fuzzSeeds returns the in-code seeds of FuzzCheck: the three RFC 9449
// example proofs (§4.1/§5, §5, §7.1) at their iat, proofs made by Make,
// and some malformed ones.
func fuzzSeeds(t testing.TB) []fuzzSeed {
	v := loadRFC9449(t)
	var seeds []fuzzSeed
	for _, pv := range v.Proofs {
		seeds = append(seeds, fuzzSeed{rfcProof(t, pv.File), pv.HTM, pv.HTU, pv.IAT})
	}
	for i, alg := range []string{"ES256", "EdDSA"} {
		k := newKey(t, alg, uint64(21+i))
		seeds = append(seeds,
			fuzzSeed{mustMake(t, k, "POST", testURI, dpop.MakeOptions{JTI: "j"}), "POST", testURI, testNow.Unix()},
			fuzzSeed{mustMake(t, k, "GET", "mcp://workspace/read_file", dpop.MakeOptions{Nonce: "n", AccessToken: "t"}), "GET", "mcp://workspace/read_file", testNow.Unix()},
		)
	}
	es := newKey(t, "ES256", 21)
	seeds = append(seeds,
		fuzzSeed{craft(t, header(t, es, "ES256"), `{"jti":"a","jti":"b","htm":"POST","htu":"`+testURI+`","iat":1700000000}`, signerFor(es)), "POST", testURI, testNow.Unix()},
		fuzzSeed{craft(t, map[string]any{"typ": "dpop+jwt", "alg": "none"}, claimsAt(testNow), nil), "POST", testURI, testNow.Unix()},
		fuzzSeed{"", "POST", testURI, 0},
		fuzzSeed{"a.b.c", "POST", testURI, 0},
		fuzzSeed{"eyJ9.e30.", "", "", -1},
	)
	return seeds
}

func TestFuzzSeeds(t *testing.T) {
	seeds := fuzzSeeds(t)
	if len(seeds) == 0 {
		t.Fatal("no fuzz seeds")
	}
	accepted := 0
	for _, s := range seeds {
		if _, err := dpop.Verify(s.proof, dpop.Expectations{Method: s.method, URI: s.uri}, time.Unix(s.now, 0)); err == nil {
			accepted++
		}
	}
	if accepted != 7 {
		t.Fatalf("%d seeds accepted, want 7 (3 RFC + 4 made)", accepted)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s.proof, s.method, s.uri, s.now)
	}
	jkts := fuzzKeys(f)
	f.Fuzz(func(t *testing.T, proof, method, uri string, now int64) {
		at := time.Unix(now, 0)
		exp := dpop.Expectations{Method: method, URI: uri}
		p, err := dpop.Verify(proof, exp, at)
		if err != nil {
			if p != nil {
				t.Fatal("proof returned with an error")
			}
			return
		}
		// An accepted proof is internally consistent.
		if jwk, err := p.Key.MarshalJSON(); err != nil {
			t.Fatal(err)
		} else if hp, err := key.ParseHolderPublic(jwk); err != nil || hp.Thumbprint() != p.Thumbprint {
			t.Fatalf("Thumbprint %q, recomputed from %s: %v", p.Thumbprint, jwk, err)
		}
		if want, _ := dpop.NormalizeURI(uri); p.Method != method || p.ReplayKey.URI != want || p.ReplayKey.JTI != p.JTI {
			t.Fatalf("accepted proof %+v does not match %q %q", p, method, uri)
		}
		if p.IssuedAt.Before(at.Add(-dpop.DefaultMaxAge)) || p.IssuedAt.After(at.Add(dpop.DefaultFutureSkew)) {
			t.Fatalf("iat %v outside the window at %v", p.IssuedAt, at)
		}
		// With an expected thumbprint, an accepted proof has exactly it.
		for _, jkt := range jkts {
			exp.Thumbprint = jkt
			q, err := dpop.Verify(proof, exp, at)
			if (err == nil) != (jkt == p.Thumbprint) {
				t.Fatalf("expected jkt %q, proof jkt %q: %v", jkt, p.Thumbprint, err)
			}
			if err == nil && q.Thumbprint != jkt {
				t.Fatalf("accepted with thumbprint %q, expected %q", q.Thumbprint, jkt)
			}
		}
	})
}
