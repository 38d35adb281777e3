package dpop_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
)

// Shared fixtures.
var (
	testNow = time.Unix(1_700_000_000, 0).UTC()
	testURI = "https://server.example.com/token"
)

// seeded returns a deterministic reader for test keys.
func seeded(n uint64) *mrand.ChaCha8 {
	var seed [32]byte
	seed[0] = byte(n)
	seed[1] = byte(n >> 8)
	return mrand.NewChaCha8(seed)
}

// newKey returns the fixed test key number n for alg, the same on every
// call: fuzzKeys and fuzzSeeds rely on it. It is built from seeded(n)
// directly, since key.GenerateHolder takes no randomness.
func newKey(t testing.TB, alg string, n uint64) crypto.Signer {
	t.Helper()
	var b [32]byte
	seeded(n).Read(b[:])
	switch alg {
	case "EdDSA":
		return ed25519.NewKeyFromSeed(b[:])
	case "ES256":
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), b[:])
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	t.Fatalf("newKey: unsupported %q", alg)
	return nil
}

// holderOf returns k as a key.Holder, through its private JWK.
func holderOf(t testing.TB, k crypto.Signer) *key.Holder {
	t.Helper()
	b, err := jose.JSONWebKey{Key: k}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	h, err := key.ParseHolder(b)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func thumbprintOf(t testing.TB, k crypto.Signer) string {
	t.Helper()
	return holderOf(t, k).Thumbprint()
}

func mustMake(t testing.TB, k crypto.Signer, method, uri string, opts dpop.MakeOptions) string {
	t.Helper()
	if opts.IssuedAt.IsZero() {
		opts.IssuedAt = testNow
	}
	p, err := dpop.Make(holderOf(t, k), method, uri, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	if s, ok := v.(string); ok { // already JSON text
		return []byte(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// publicJWKMap returns the public JWK of k as a JSON object map.
func publicJWKMap(t testing.TB, k crypto.Signer) map[string]any {
	t.Helper()
	b := holderOf(t, k).Public().JWK()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// privateJWKMap returns the private JWK of k as a JSON object map.
func privateJWKMap(t testing.TB, k crypto.Signer) map[string]any {
	t.Helper()
	alg := "EdDSA"
	if _, ok := k.(*ecdsa.PrivateKey); ok {
		alg = "ES256"
	}
	b, err := jose.JSONWebKey{Key: k, Algorithm: alg}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// craft builds a compact JWS by hand from a header and claims (maps,
// structs, or raw JSON text) and signs it with sign (nil: empty signature).
func craft(t testing.TB, header, claims any, sign func([]byte) []byte) string {
	t.Helper()
	input := b64(mustJSON(t, header)) + "." + b64(mustJSON(t, claims))
	var sig []byte
	if sign != nil {
		sig = sign([]byte(input))
	}
	return input + "." + b64(sig)
}

// signerFor returns a raw JWS signing function for k (ES256: r||s).
func signerFor(k crypto.Signer) func([]byte) []byte {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		return func(in []byte) []byte {
			h := sha256.Sum256(in)
			r, s, err := ecdsa.Sign(rand.Reader, k, h[:])
			if err != nil {
				panic(err)
			}
			size := (k.Curve.Params().BitSize + 7) / 8
			out := make([]byte, 2*size)
			r.FillBytes(out[:size])
			s.FillBytes(out[size:])
			return out
		}
	case ed25519.PrivateKey:
		return func(in []byte) []byte { return ed25519.Sign(k, in) }
	}
	panic("unsupported key")
}

// header returns a valid DPoP header for k with alg.
func header(t testing.TB, k crypto.Signer, alg string) map[string]any {
	return map[string]any{"typ": "dpop+jwt", "alg": alg, "jwk": publicJWKMap(t, k)}
}

// claimsAt returns valid claims for POST testURI at iat.
func claimsAt(iat time.Time) map[string]any {
	return map[string]any{"jti": "jti-1", "htm": "POST", "htu": testURI, "iat": iat.Unix()}
}

// wantRefused asserts that err is a refusal by the given check.
func wantRefused(t testing.TB, err error, want dpop.Check) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want refusal by %q", want)
	}
	var e *dpop.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *dpop.Error", err, err)
	}
	if e.Check != want {
		t.Fatalf("refused by %q (%v), want %q", e.Check, err, want)
	}
	if !errors.Is(err, dpop.ErrInvalid) {
		t.Fatalf("errors.Is(%v, ErrInvalid) = false", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "dpop: ") || strings.HasSuffix(msg, ".") || msg != strings.ToLower(msg) && !strings.Contains(msg, `"`) {
		t.Fatalf("badly formed error message %q", msg)
	}
}

// flipSignature returns s with a character of its signature part replaced by
// another base64url character, away from the end (keeps canonical form).
func flipSignature(s string) string {
	i := strings.LastIndexByte(s, '.') + 5
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

func withAlg(m map[string]any, alg string) map[string]any {
	m["alg"] = alg
	return m
}
