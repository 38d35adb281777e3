package key_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/key"
)

// The Ed25519 example key of RFC 8037 Appendix A.1 (a published test key)
// and its RFC 7638 thumbprint (RFC 8037 Appendix A.3).
const (
	rfc8037Private = `{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`
	rfc8037Public  = `{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`
	rfc8037JKT     = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
)

func TestHolderRFC8037(t *testing.T) {
	h, err := key.ParseHolder([]byte(rfc8037Private))
	if err != nil {
		t.Fatal(err)
	}
	p, err := key.ParseHolderPublic([]byte(rfc8037Public))
	if err != nil {
		t.Fatal(err)
	}
	if h.Thumbprint() != rfc8037JKT || p.Thumbprint() != rfc8037JKT || h.Alg() != key.Ed25519 || p.Alg() != key.Ed25519 {
		t.Fatalf("thumbprints %s, %s", h.Thumbprint(), p.Thumbprint())
	}
	if string(h.Public().JWK()) != `{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}` {
		t.Fatalf("public JWK %s", h.Public().JWK())
	}
}

func TestHolderRoundTrip(t *testing.T) {
	for _, alg := range []key.Alg{key.ES256, key.Ed25519} {
		h, err := key.GenerateHolder(alg)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "agent.jwk")
		if err := h.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v", st.Mode())
		}
		if err := h.WriteFile(p); err == nil {
			t.Fatal("holder file overwritten")
		}
		back, err := key.ReadHolderFile(p)
		if err != nil || back.Thumbprint() != h.Thumbprint() || back.Alg() != alg {
			t.Fatalf("%v: %v", alg, err)
		}
		os.Chmod(p, 0o644)
		if _, err := key.ReadHolderFile(p); !errors.Is(err, key.ErrFileMode) {
			t.Fatalf("%v: world-readable holder file: %v", alg, err)
		}
		pub, err := key.ParseHolderPublic(h.Public().JWK())
		if err != nil || pub.Thumbprint() != h.Thumbprint() {
			t.Fatalf("%v: public: %v", alg, err)
		}
		var m map[string]string
		json.Unmarshal(pub.JWK(), &m)
		if _, ok := m["d"]; ok || m["alg"] != map[key.Alg]string{key.ES256: "ES256", key.Ed25519: "EdDSA"}[alg] {
			t.Fatalf("%v: public JWK %s", alg, pub.JWK())
		}
		// A private JWK is not a public one, and the error quotes neither.
		priv := readFile(t, p)
		json.Unmarshal([]byte(priv), &m)
		if _, err := key.ParseHolderPublic([]byte(priv)); err == nil || strings.Contains(err.Error(), m["d"]) || strings.Contains(err.Error(), m["x"]) {
			t.Fatalf("%v: ParseHolderPublic(private) = %v", alg, err)
		}
		if _, err := key.ParseHolder(pub.JWK()); err == nil {
			t.Fatalf("%v: ParseHolder accepted a public key", alg)
		}
	}
}

// TestHolderSignature: Sign's signatures verify under the public key and
// only over their message; an ES256 signature's high-S twin is refused,
// so that a ticket carrying one has one encoding.
func TestHolderSignature(t *testing.T) {
	for _, alg := range []key.Alg{key.ES256, key.Ed25519} {
		h, _ := key.GenerateHolder(alg)
		pub := h.Public()
		msg := []byte("rebind me")
		for range 20 { // ECDSA signatures are randomised: several tries hit both S halves
			sig, err := h.Sign(msg)
			if err != nil || !pub.Verify(msg, sig) {
				t.Fatalf("%v: %v", alg, err)
			}
			bad := append([]byte(nil), sig...)
			bad[0] ^= 1
			if pub.Verify(msg, bad) || pub.Verify([]byte("other"), sig) || pub.Verify(msg, sig[:63]) {
				t.Fatalf("%v: a wrong signature verifies", alg)
			}
			if alg == key.ES256 {
				n := elliptic.P256().Params().N
				s := new(big.Int).SetBytes(sig[32:])
				if s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
					t.Fatal("Sign made a high-S signature")
				}
				high := append(append([]byte(nil), sig[:32]...), new(big.Int).Sub(n, s).FillBytes(make([]byte, 32))...)
				if pub.Verify(msg, high) {
					t.Fatal("high-S signature accepted")
				}
			}
		}
		other, _ := key.GenerateHolder(alg)
		sig, _ := h.Sign(msg)
		if other.Public().Verify(msg, sig) {
			t.Fatalf("%v: another key verifies", alg)
		}
	}
}

func TestParseHolderRefuses(t *testing.T) {
	es1, es2 := privateMap(t, key.ES256), privateMap(t, key.ES256)
	spliced := map[string]any{"kty": "EC", "crv": "P-256", "x": es1["x"], "y": es1["y"], "d": es2["d"]}
	withD := func(d string) map[string]any { // d outside [1, n-1], 32 bytes
		return map[string]any{"kty": "EC", "crv": "P-256", "x": es1["x"], "y": es1["y"], "d": d}
	}
	ed := privateMap(t, key.Ed25519)
	edWrongAlg := map[string]any{"kty": "OKP", "crv": "Ed25519", "x": ed["x"], "d": ed["d"], "alg": "ES256"}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384JWK, _ := jose.JSONWebKey{Key: p384}.MarshalJSON()
	p384Pub, _ := jose.JSONWebKey{Key: p384.Public()}.MarshalJSON()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaPub, _ := jose.JSONWebKey{Key: rsaKey.Public()}.MarshalJSON()
	pub1 := map[string]any{"kty": "EC", "crv": "P-256", "x": es1["x"], "y": es1["y"]}
	for name, data := range map[string][]byte{
		"spliced d":     toJSON(t, spliced),
		"d zero":        toJSON(t, withD("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
		"d = n":         toJSON(t, withD("_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE")),
		"d = 2^256-1":   toJSON(t, withD("__________________________________________8")),
		"ed wrong alg":  toJSON(t, edWrongAlg),
		"p-384":         p384JWK,
		"oct":           []byte(`{"kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`),
		"garbage":       []byte("{"),
		"duplicate d":   []byte(`{"kty":"OKP","crv":"Ed25519","x":"` + ed["x"].(string) + `","d":"` + ed["d"].(string) + `","d":"` + ed["d"].(string) + `"}`),
		"empty":         nil,
		"public p-256":  toJSON(t, pub1),
		"too long":      []byte(strings.Repeat(" ", key.MaxFileBytes+1)),
		"wrong alg pub": toJSON(t, map[string]any{"kty": "EC", "crv": "P-256", "x": es1["x"], "y": es1["y"], "alg": "EdDSA"}),
	} {
		if _, err := key.ParseHolder(data); !errors.Is(err, key.ErrMalformed) {
			t.Errorf("ParseHolder(%s) = %v", name, err)
		} else if strings.Contains(err.Error(), es2["d"].(string)) {
			t.Errorf("ParseHolder(%s) echoes the key: %v", name, err)
		}
	}
	withK := map[string]any{"kty": "EC", "crv": "P-256", "x": es1["x"], "y": es1["y"], "k": "AAAA"}
	withPriv := map[string]any{"kty": "EC", "crv": "P-256", "x": es1["x"], "y": es1["y"], "priv": "AAAA"}
	for name, data := range map[string][]byte{
		"oct":           []byte(`{"kty":"oct","k":"AAAA"}`),
		"symmetric k":   toJSON(t, withK),
		"priv member":   toJSON(t, withPriv),
		"p-384":         p384Pub,
		"rsa":           rsaPub,
		"short ed":      []byte(`{"kty":"OKP","crv":"Ed25519","x":"AQID"}`),
		"duplicate x":   []byte(`{"kty":"EC","crv":"P-256","x":"` + es1["x"].(string) + `","x":"` + es1["x"].(string) + `","y":"` + es1["y"].(string) + `"}`),
		"wrong alg":     toJSON(t, map[string]any{"kty": "EC", "crv": "P-256", "x": es1["x"], "y": es1["y"], "alg": "EdDSA"}),
		"not an object": []byte(`"key"`),
		"null":          []byte(`null`),
		"ed private":    toJSON(t, ed),
	} {
		if _, err := key.ParseHolderPublic(data); !errors.Is(err, key.ErrMalformed) {
			t.Errorf("ParseHolderPublic(%s) = %v", name, err)
		}
	}
	if _, err := key.ParseHolderPublic(toJSON(t, pub1)); err != nil {
		t.Fatalf("valid public JWK: %v", err)
	}
}

// privateMap is a new holder key's private JWK as a map.
func privateMap(t *testing.T, alg key.Alg) map[string]any {
	t.Helper()
	h, _ := key.GenerateHolder(alg)
	p := filepath.Join(t.TempDir(), "h.jwk")
	if err := h.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(readFile(t, p)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func toJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
