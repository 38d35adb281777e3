package dpop_test

import (
	"crypto"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
)

// The alg "Ed25519" of RFC 9864 §2.2 is accepted beside "EdDSA" for
// Ed25519 keys only, each name on its own allow-list entry, and a jwk's
// "alg" member names one of them alone (spec/FORMAT.md §4.5 steps 4–5).
func TestEd25519Alg(t *testing.T) {
	es := newKey(t, "ES256", 1)
	ed := newKey(t, "EdDSA", 2)
	good := claimsAt(testNow)
	sES, sEd := signerFor(es), signerFor(ed)
	edJWK := func(member string) map[string]any {
		m := publicJWKMap(t, ed)
		delete(m, "alg")
		if member != "" {
			m["alg"] = member
		}
		return m
	}
	hdr := func(alg string, jwk map[string]any) map[string]any {
		return map[string]any{"typ": "dpop+jwt", "alg": alg, "jwk": jwk}
	}
	only := func(a ...jose.SignatureAlgorithm) dpop.Expectations {
		e := postToken
		e.Algorithms = a
		return e
	}
	for _, c := range []struct {
		name  string
		proof string
		exp   dpop.Expectations
		want  dpop.Check // "" accepted
	}{
		{"Ed25519", craft(t, hdr("Ed25519", edJWK("")), good, sEd), postToken, ""},
		{"Ed25519 with jwk alg Ed25519", craft(t, hdr("Ed25519", edJWK("Ed25519")), good, sEd), postToken, ""},
		{"EdDSA still", craft(t, hdr("EdDSA", edJWK("")), good, sEd), postToken, ""},
		{"Ed25519 with jwk alg EdDSA", craft(t, hdr("Ed25519", edJWK("EdDSA")), good, sEd), postToken, dpop.CheckJWK},
		{"EdDSA with jwk alg Ed25519", craft(t, hdr("EdDSA", edJWK("Ed25519")), good, sEd), postToken, dpop.CheckJWK},
		{"Ed25519 with P-256 jwk", craft(t, hdr("Ed25519", publicJWKMap(t, es)), good, sES), postToken, dpop.CheckJWK},
		{"ES256 with jwk alg Ed25519", craft(t, hdr("ES256", edJWK("Ed25519")), good, sEd), postToken, dpop.CheckJWK},
		{"Ed25519 signed by another key", craft(t, hdr("Ed25519", edJWK("")), good, signerFor(newKey(t, "EdDSA", 3))), postToken, dpop.CheckSignature},
		{"ed25519 in lower case", craft(t, hdr("ed25519", edJWK("")), good, sEd), postToken, dpop.CheckAlg},
		{"Ed448", craft(t, hdr("Ed448", edJWK("")), good, sEd), postToken, dpop.CheckAlg},
		{"Ed25519 off an EdDSA-only list", craft(t, hdr("Ed25519", edJWK("")), good, sEd), only(jose.EdDSA, jose.ES256), dpop.CheckAlg},
		{"EdDSA off an Ed25519-only list", craft(t, hdr("EdDSA", edJWK("")), good, sEd), only(dpop.Ed25519), dpop.CheckAlg},
		{"Ed25519 on an Ed25519-only list", craft(t, hdr("Ed25519", edJWK("")), good, sEd), only(dpop.Ed25519), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := dpop.Verify(c.proof, c.exp, testNow)
			if c.want != "" {
				wantRefused(t, err, c.want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Thumbprint != thumbprintOf(t, ed) {
				t.Fatalf("thumbprint %s, want ed's", p.Thumbprint)
			}
		})
	}
}

// Make signs under "EdDSA" by default and under "Ed25519" when asked, for
// an Ed25519 key only; the thumbprint is the key's either way.
func TestMakeEd25519(t *testing.T) {
	ed, es := newKey(t, "EdDSA", 2), newKey(t, "ES256", 1)
	for _, c := range []struct {
		alg, want jose.SignatureAlgorithm
	}{{"", jose.EdDSA}, {jose.EdDSA, jose.EdDSA}, {dpop.Ed25519, dpop.Ed25519}} {
		proof := mustMake(t, ed, "POST", testURI, dpop.MakeOptions{Algorithm: c.alg})
		if got := headerAlg(t, proof); got != string(c.want) {
			t.Fatalf("Algorithm %q: alg %q, want %q", c.alg, got, c.want)
		}
		p, err := dpop.Verify(proof, postToken, testNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.Thumbprint != thumbprintOf(t, ed) || p.Key.Algorithm != string(c.want) {
			t.Fatalf("Algorithm %q: thumbprint %s, key alg %s", c.alg, p.Thumbprint, p.Key.Algorithm)
		}
	}
	for _, c := range []struct {
		k   crypto.Signer
		alg jose.SignatureAlgorithm
	}{{es, dpop.Ed25519}, {es, jose.EdDSA}, {ed, jose.ES256}, {ed, "ed25519"}, {ed, jose.HS256}, {es, "none"}} {
		h := holderOf(t, c.k)
		if _, err := dpop.Make(h, "POST", testURI, dpop.MakeOptions{IssuedAt: testNow, Algorithm: c.alg}); err == nil ||
			!strings.HasPrefix(err.Error(), "dpop: ") {
			t.Errorf("Algorithm %q: %v", c.alg, err)
		}
	}
}

func headerAlg(t *testing.T, proof string) string {
	t.Helper()
	enc, _, _ := strings.Cut(proof, ".")
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Alg string          `json:"alg"`
		JWK json.RawMessage `json:"jwk"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(h.JWK), `"alg"`) {
		t.Fatalf("the proof's jwk has an alg member: %s", h.JWK)
	}
	return h.Alg
}

// A proof made by another implementation, the npm package dpop 2.1.2,
// which signs Ed25519 proofs under the alg "Ed25519" (testdata/README.md):
// accepted by default, refused by an allow-list without that name.
func TestIndependentEd25519Proof(t *testing.T) {
	proof := strings.TrimSpace(string(readTestdata(t, "independent/panva-dpop-2.1.2-ed25519.jwt")))
	if headerAlg(t, proof) != "Ed25519" {
		t.Fatal("not an Ed25519 proof")
	}
	exp := dpop.Expectations{Method: "POST", URI: "https://api.example.org/notes", Nonce: "n-1", AccessToken: "tkt1_example-access-token"}
	iat := time.Unix(1796198275, 0)
	p, err := dpop.Verify(proof, exp, iat)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key.Algorithm != "Ed25519" || p.Thumbprint == "" {
		t.Fatalf("%+v", p)
	}
	exp.Algorithms = []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA}
	_, err = dpop.Verify(proof, exp, iat)
	wantRefused(t, err, dpop.CheckAlg)
}
