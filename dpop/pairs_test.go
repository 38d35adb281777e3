package dpop

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"github.com/tickettool/tickettool/internal/fixedkey"
	ijwk "github.com/tickettool/tickettool/internal/jwk"
	"github.com/tickettool/tickettool/key"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// TestPairs measures, as interleaved pairs in one process, what decoding
// the JSON with go-jose would cost against the hot-path target (a DPoP
// check at most 1.05x go-jose's bare proof check):
//
//	TICKETTOOL_PAIRS=1 go test -run '^TestPairs$' -v ./dpop/
//
// Each pair runs A, B, B, A in batches of about 30 ms of process CPU time
// (getrusage, so that other processes on a shared host count less); each
// batch starts after a collection and ends with one, inside the timing, so
// that a batch pays for its own garbage; the cost of a collection without
// garbage, measured before and after each pair, is subtracted. The ratio
// of a pair is B's time over A's; the median and the range of the pairs
// are reported, with the median time and the allocations per call.
func TestPairs(t *testing.T) {
	if os.Getenv("TICKETTOOL_PAIRS") != "1" {
		t.Skip("set TICKETTOOL_PAIRS=1 to measure")
	}
	pairs := 31
	for _, alg := range []string{"ES256", "EdDSA"} {
		proof, exp, now := pairProof(t, alg)
		st, err := exp.resolve()
		if err != nil {
			t.Fatal(err)
		}
		hand := func() {
			if _, err := Verify(proof, exp, now); err != nil {
				t.Fatal(err)
			}
		}
		lib := func() {
			if _, e := checkByGoJose(proof, &exp, &st, now); e != nil {
				t.Fatal(e)
			}
		}
		ref := func() {
			if _, e := checkByReference(proof, &exp, &st, now); e != nil {
				t.Fatal(e)
			}
		}
		bare := func() { bareGoJose(t, proof) }
		for _, c := range []struct {
			name string
			a, b func()
		}{
			{"main Check / bare go-jose", bare, hand},
			{"go-jose JSON Check / bare go-jose", bare, lib},
			{"go-jose JSON Check / main Check", hand, lib},
			{"go-jose JWS Check / main Check", hand, ref},
			{"go-jose JWS Check / bare go-jose", bare, ref},
		} {
			report(t, alg+": "+c.name, c.a, c.b, pairs)
		}
	}
	// The two decoders alone, on the payload and header of one proof.
	proof, _, _ := pairProof(t, "EdDSA")
	enc, rest, _ := strings.Cut(proof, ".")
	payload, err := base64.RawURLEncoding.DecodeString(rest[:strings.IndexByte(rest, '.')])
	if err != nil {
		t.Fatal(err)
	}
	report(t, "claims: go-jose / hand-written", func() { _, _, _ = decodeClaims(payload) },
		func() { _, _, _ = refDecodeClaims(payload) }, pairs)
	report(t, "header text: go-jose / hand-written", func() { _ = checkHeaderText(enc) },
		func() { _ = refHeaderText(enc) }, pairs)
}

// checkByGoJose is check with the claims decoded by go-jose's JSON.
func checkByGoJose(proof string, exp *Expectations, st *settings, now time.Time) (*Proof, *Error) {
	jwk, payload, e := verifyJWS(proof, st)
	if e != nil {
		return nil, e
	}
	c, iat, e := refDecodeClaims(payload)
	if e != nil {
		return nil, e
	}
	return checkClaims(jwk, c, iat, exp, st, now)
}

// checkByReference is check with the JWS checked by go-jose
// (referenceVerifyJWS), as verifyJWS once did, through go-jose.
func checkByReference(proof string, exp *Expectations, st *settings, now time.Time) (*Proof, *Error) {
	jwk, payload, e := referenceVerifyJWS(proof, st)
	if e != nil {
		return nil, e
	}
	c, iat, e := decodeClaims(payload)
	if e != nil {
		return nil, e
	}
	return checkClaims(fromJose(jwk), c, iat, exp, st, now)
}

// fromJose is the publicKey of a key go-jose parsed.
func fromJose(jwk *jose.JSONWebKey) *publicKey {
	k := &publicKey{alg: jose.SignatureAlgorithm(jwk.Algorithm), Key: new(ijwk.Key)}
	switch pub := jwk.Key.(type) {
	case *ecdsa.PublicKey:
		raw, _ := pub.Bytes()
		copy(k.X[:], raw[1:33])
		copy(k.Y[:], raw[33:])
		k.EC = pub
	case ed25519.PublicKey:
		copy(k.X[:], pub)
		k.Ed = pub
	}
	return k
}

// bareGoJose is go-jose's own proof check: parse, verify with the
// embedded key, nothing else.
func bareGoJose(t testing.TB, proof string) {
	jws, err := jose.ParseSignedCompact(proof, supportedAlgorithms[:])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jws.Verify(jws.Signatures[0].Protected.JSONWebKey); err != nil {
		t.Fatal(err)
	}
}

func pairProof(t testing.TB, alg string) (string, Expectations, time.Time) {
	a := key.Ed25519
	if alg == "ES256" {
		a = key.ES256
	}
	k, err := fixedkey.Holder(a, "tickettool dpop pairs, key seed.")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	uri := "https://server.example.com/token"
	proof, err := Make(k, "POST", uri, MakeOptions{IssuedAt: now, Nonce: "nonce-1", AccessToken: "access-token"})
	if err != nil {
		t.Fatal(err)
	}
	jkt := k.Thumbprint()
	return proof, Expectations{Method: "POST", URI: uri, Nonce: "nonce-1", AccessToken: "access-token", Thumbprint: jkt}, now
}

// report measures a pair and logs B/A: median [min, max], each side's
// median time per call and allocations per call.
func report(t *testing.T, name string, a, b func(), pairs int) {
	n := calibrate(a)
	var ratios, ta, tb []float64
	for range pairs {
		g1 := batch(a, 0)
		a1, b1, b2, a2 := batch(a, n), batch(b, n), batch(b, n), batch(a, n)
		g := (g1 + batch(a, 0)) / 2
		ratios = append(ratios, (b1+b2-2*g)/(a1+a2-2*g))
		ta, tb = append(ta, a1-g, a2-g), append(tb, b1-g, b2-g)
	}
	t.Logf("%-40s %.3f [%.3f, %.3f]  %6.1f µs %3.0f allocs | %6.1f µs %3.0f allocs  (%d pairs x %d)",
		name, median(ratios), slices.Min(ratios), slices.Max(ratios),
		median(ta)/float64(n)*1e6, testing.AllocsPerRun(100, a),
		median(tb)/float64(n)*1e6, testing.AllocsPerRun(100, b), pairs, n)
}

// calibrate returns a batch size of about 30 ms of CPU time for f.
func calibrate(f func()) int {
	n := 16
	for {
		start := cpuSeconds()
		for range n {
			f()
		}
		if d := cpuSeconds() - start; d > 0.01 {
			return max(1, int(float64(n)*0.03/d))
		}
		n *= 4
	}
}

// batch returns the process CPU seconds of n calls of f and of the
// collection that follows them. A collection of no garbage (n = 0), the
// same for both sides of a pair, is subtracted by report.
func batch(f func(), n int) float64 {
	runtime.GC()
	start := cpuSeconds()
	for range n {
		f()
	}
	runtime.GC()
	return cpuSeconds() - start
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(fmt.Sprint("getrusage: ", err))
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
