package dpop

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"strings"
	"testing"
)

// TestNewKeyFrom checks the derivation the spec vectors' holder keys are
// defined by: it is a function of its stream, P-256 rejection sampling
// skips candidates >= n, and a short stream is an error.
func TestNewKeyFrom(t *testing.T) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		a, err1 := newKeyFrom(alg, bytes.NewReader(bytes.Repeat([]byte{5}, 32)))
		b, err2 := newKeyFrom(alg, bytes.NewReader(bytes.Repeat([]byte{5}, 32)))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", alg, err1, err2)
		}
		if !a.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(b.Public()) {
			t.Fatalf("%s: newKeyFrom is not a function of its stream", alg)
		}
		if _, err := newKeyFrom(alg, strings.NewReader("short")); err == nil {
			t.Fatalf("%s: short randomness accepted", alg)
		}
	}
	ff := bytes.Repeat([]byte{0xff}, 32)
	k, err := newKeyFrom("ES256", bytes.NewReader(append(ff, bytes.Repeat([]byte{1}, 32)...)))
	if err != nil {
		t.Fatalf("ES256 from 0xff..: %v", err)
	}
	// The first candidate (0xff…, above n) is skipped; the scalar is the
	// second.
	if d, err := k.(*ecdsa.PrivateKey).Bytes(); err != nil || !bytes.Equal(d, bytes.Repeat([]byte{1}, 32)) {
		t.Fatalf("ES256 from 0xff..: scalar %x, %v; want the second candidate", d, err)
	}
	if _, err := newKeyFrom("ES256", bytes.NewReader(bytes.Repeat([]byte{0xff}, 32*maxKeyAttempts))); err == nil {
		t.Fatal("a stream of only out-of-range candidates gave a key")
	}
}
