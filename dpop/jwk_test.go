package dpop_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"strings"
	"testing"
	"testing/cryptotest"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
)

// TestNewKey checks that NewKey draws from crypto/rand, so that
// testing/cryptotest.SetGlobalRandom makes it reproducible: the same seed
// gives the same key, another seed another key.
func TestNewKey(t *testing.T) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		gen := func(seed uint64) string {
			cryptotest.SetGlobalRandom(t, seed)
			k, err := dpop.NewKey(alg)
			if err != nil {
				t.Fatalf("%s: %v", alg, err)
			}
			return thumbprintOf(t, k)
		}
		if a, b, c := gen(5), gen(5), gen(6); a != b || a == c {
			t.Fatalf("%s: NewKey does not follow crypto/rand", alg)
		}
	}
	for _, alg := range []string{"RS256", "HS256", "none", "", "es256"} {
		if _, err := dpop.NewKey(alg); err == nil {
			t.Fatalf("NewKey(%q) succeeded", alg)
		}
	}
}

func TestJWKRoundTrip(t *testing.T) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		k := newKey(t, alg, 9)
		priv, err := dpop.MarshalPrivateJWK(k)
		if err != nil {
			t.Fatal(err)
		}
		k2, err := dpop.ParsePrivateJWK(priv)
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		if thumbprintOf(t, k2) != thumbprintOf(t, k) {
			t.Fatalf("%s: private round trip changed the key", alg)
		}
		pub, err := dpop.MarshalPublicJWK(k.Public())
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(pub, []byte(`"d"`)) || !bytes.Contains(pub, []byte(`"alg":"`+alg+`"`)) {
			t.Fatalf("%s: public jwk %s", alg, pub)
		}
		jwk, err := dpop.ParsePublicJWK(pub)
		if err != nil {
			t.Fatal(err)
		}
		if jkt, _ := dpop.Thumbprint(jwk); jkt != thumbprintOf(t, k) {
			t.Fatalf("%s: public round trip changed the key", alg)
		}
		// A private JWK is refused where a public one is expected, and the
		// error does not echo key material.
		_, err = dpop.ParsePublicJWK(priv)
		var m map[string]string
		_ = json.Unmarshal(priv, &m)
		if err == nil || strings.Contains(err.Error(), m["d"]) || strings.Contains(err.Error(), m["x"]) {
			t.Fatalf("%s: ParsePublicJWK(private) = %v", alg, err)
		}
		if _, err := dpop.ParsePrivateJWK(pub); err == nil {
			t.Fatalf("%s: ParsePrivateJWK accepted a public key", alg)
		}
	}
}

func TestParseJWKRefusals(t *testing.T) {
	es1, es2 := newKey(t, "ES256", 1), newKey(t, "ES256", 2)
	m1, m2 := privateJWKMap(t, es1), privateJWKMap(t, es2)
	spliced := map[string]any{"kty": "EC", "crv": "P-256", "x": m1["x"], "y": m1["y"], "d": m2["d"]}
	withD := func(d string) map[string]any { // d outside [1, n-1], 32 bytes
		return map[string]any{"kty": "EC", "crv": "P-256", "x": m1["x"], "y": m1["y"], "d": d}
	}
	ed := privateJWKMap(t, newKey(t, "EdDSA", 3))
	edWrongAlg := map[string]any{"kty": "OKP", "crv": "Ed25519", "x": ed["x"], "d": ed["d"], "alg": "ES256"}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384JWK, _ := jose.JSONWebKey{Key: p384}.MarshalJSON()
	p384Pub, _ := jose.JSONWebKey{Key: p384.Public()}.MarshalJSON()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaPub, _ := jose.JSONWebKey{Key: rsaKey.Public()}.MarshalJSON()
	for name, data := range map[string][]byte{
		"spliced d":     mustJSON(t, spliced),
		"d zero":        mustJSON(t, withD("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
		"d = n":         mustJSON(t, withD("_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE")),
		"d = 2^256-1":   mustJSON(t, withD("__________________________________________8")),
		"ed wrong alg":  mustJSON(t, edWrongAlg),
		"p-384":         p384JWK,
		"oct":           []byte(`{"kty":"oct","k":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`),
		"garbage":       []byte("{"),
		"duplicate d":   []byte(`{"kty":"OKP","crv":"Ed25519","x":"` + ed["x"].(string) + `","d":"` + ed["d"].(string) + `","d":"` + ed["d"].(string) + `"}`),
		"empty":         nil,
		"public p-256":  mustJSON(t, publicJWKMap(t, es1)),
		"wrong alg pub": mustJSON(t, withAlg(publicJWKMap(t, es1), "EdDSA")),
	} {
		if _, err := dpop.ParsePrivateJWK(data); err == nil {
			t.Errorf("ParsePrivateJWK(%s) accepted", name)
		} else if d, ok := m2["d"].(string); ok && strings.Contains(err.Error(), d) {
			t.Errorf("ParsePrivateJWK(%s) echoes key: %v", name, err)
		}
	}
	pubX := publicJWKMap(t, es1)
	withK := publicJWKMap(t, es1)
	withK["k"] = "AAAA"
	for name, data := range map[string][]byte{
		"oct":           []byte(`{"kty":"oct","k":"AAAA"}`),
		"symmetric k":   mustJSON(t, withK),
		"p-384":         p384Pub,
		"rsa":           rsaPub,
		"duplicate x":   []byte(`{"kty":"EC","crv":"P-256","x":"` + pubX["x"].(string) + `","x":"` + pubX["x"].(string) + `","y":"` + pubX["y"].(string) + `"}`),
		"wrong alg":     mustJSON(t, withAlg(publicJWKMap(t, es1), "EdDSA")),
		"not an object": []byte(`"key"`),
		"null":          []byte(`null`),
	} {
		if _, err := dpop.ParsePublicJWK(data); err == nil {
			t.Errorf("ParsePublicJWK(%s) accepted", name)
		}
	}
}

func TestThumbprintRefusals(t *testing.T) {
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	es := newKey(t, "ES256", 1)
	for name, k := range map[string]*jose.JSONWebKey{
		"nil":          nil,
		"empty":        {},
		"symmetric":    {Key: []byte("0123456789abcdef")},
		"ecdsa priv":   {Key: es},
		"ed25519 priv": {Key: edPriv},
		"short ed":     {Key: ed25519.PublicKey{1, 2, 3}},
	} {
		if jkt, err := dpop.Thumbprint(k); err == nil {
			t.Errorf("Thumbprint(%s) = %q", name, jkt)
		}
	}
	if _, err := dpop.ThumbprintOf(es); err == nil {
		t.Error("ThumbprintOf accepted a private key")
	}
	for _, k := range []any{es, ed25519.PrivateKey(edPriv), nil, []byte("x")} {
		if _, err := dpop.MarshalPublicJWK(k); err == nil {
			t.Errorf("MarshalPublicJWK(%T) accepted", k)
		}
	}
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	if _, err := dpop.MarshalPrivateJWK(rsaKey); err == nil {
		t.Error("MarshalPrivateJWK accepted an RSA key")
	}
}
