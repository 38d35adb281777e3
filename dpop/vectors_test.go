package dpop_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
)

// rfc9449Vectors mirrors testdata/rfc9449/vectors.json.
type rfc9449Vectors struct {
	PublicJWK json.RawMessage `json:"public_jwk"`
	JKT       string          `json:"jkt"`
	Proofs    []struct {
		Name        string `json:"name"`
		File        string `json:"file"`
		HTM         string `json:"htm"`
		HTU         string `json:"htu"`
		IAT         int64  `json:"iat"`
		JTI         string `json:"jti"`
		AccessToken string `json:"access_token"`
		ATH         string `json:"ath"`
	} `json:"proofs"`
}

func loadRFC9449(t testing.TB) rfc9449Vectors {
	t.Helper()
	var v rfc9449Vectors
	if err := json.Unmarshal(readTestdata(t, "rfc9449/vectors.json"), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Proofs) != 3 {
		t.Fatalf("want 3 RFC 9449 proofs, have %d", len(v.Proofs))
	}
	return v
}

func rfcProof(t testing.TB, file string) string {
	return strings.TrimSpace(string(readTestdata(t, "rfc9449/"+file)))
}

// RFC 9449 §4.1/§5 (token request), §5 (refresh request) and §7.1
// (resource request with ath for the §7.1 example access token). The
// proofs are from 2019, so now is set to each proof's iat.
func TestRFC9449Proofs(t *testing.T) {
	v := loadRFC9449(t)
	const jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" // RFC 9449 §6.1
	if v.JKT != jkt {
		t.Fatalf("vectors.json jkt = %q", v.JKT)
	}
	for _, pv := range v.Proofs {
		t.Run(pv.Name, func(t *testing.T) {
			exp := dpop.Expectations{
				Method:      pv.HTM,
				URI:         pv.HTU,
				AccessToken: pv.AccessToken,
				Thumbprint:  jkt,
			}
			now := time.Unix(pv.IAT, 0)
			p, err := dpop.Verify(rfcProof(t, pv.File), exp, now)
			if err != nil {
				t.Fatal(err)
			}
			if p.Thumbprint != jkt || p.JTI != pv.JTI || p.Method != pv.HTM || p.URI != pv.HTU ||
				!p.IssuedAt.Equal(now) {
				t.Fatalf("proof = %+v", p)
			}
			if p.ReplayKey != (dpop.ReplayKey{JTI: pv.JTI, URI: pv.HTU}) {
				t.Fatalf("replay key = %+v", p.ReplayKey)
			}
			want := now.Add(dpop.RememberFor)
			if !p.RememberUntil.Equal(want) {
				t.Fatalf("remember until %v, want %v", p.RememberUntil, want)
			}
		})
	}
}

// RFC 9449 §7.1: the resource-request proof's ath must match the example
// access token; any other token is refused, and a missing token is not
// checked.
func TestRFC9449ResourceProofATH(t *testing.T) {
	v := loadRFC9449(t)
	pv := v.Proofs[2]
	if pv.ATH == "" {
		t.Fatal("vector has no ath")
	}
	proof := rfcProof(t, pv.File)
	now := time.Unix(pv.IAT, 0)
	exp := dpop.Expectations{Method: pv.HTM, URI: pv.HTU, AccessToken: pv.AccessToken + "x"}
	_, err := dpop.Verify(proof, exp, now)
	wantRefused(t, err, dpop.CheckATH)
	exp.AccessToken = ""
	if _, err := dpop.Verify(proof, exp, now); err != nil {
		t.Fatalf("ath not expected, still refused: %v", err)
	}
}

// RFC 9449 §4.1/§5: the same proofs are refused outside their window, with
// another method, or for another key.
func TestRFC9449ProofsRefused(t *testing.T) {
	v := loadRFC9449(t)
	pv := v.Proofs[0]
	proof := rfcProof(t, pv.File)
	exp := dpop.Expectations{Method: pv.HTM, URI: pv.HTU}
	iat := time.Unix(pv.IAT, 0)
	_, err := dpop.Verify(proof, exp, iat.Add(dpop.DefaultMaxAge+time.Second))
	wantRefused(t, err, dpop.CheckIAT)
	_, err = dpop.Verify(proof, dpop.Expectations{Method: "GET", URI: pv.HTU}, iat)
	wantRefused(t, err, dpop.CheckHTM)
	exp.Thumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
	_, err = dpop.Verify(proof, exp, iat)
	wantRefused(t, err, dpop.CheckJKT)
}

// RFC 9449 §6.1: the example public JWK has the example jkt.
func TestRFC9449JWKThumbprint(t *testing.T) {
	v := loadRFC9449(t)
	k, err := key.ParseHolderPublic(v.PublicJWK)
	if err != nil {
		t.Fatal(err)
	}
	got := k.Thumbprint()
	if got != v.JKT {
		t.Fatalf("Thumbprint = %q, %v; want %q", got, err, v.JKT)
	}
}

// RFC 8037 Appendix A.1-A.3: the Ed25519 example key and its thumbprint.
func TestRFC8037Thumbprint(t *testing.T) {
	var v struct {
		Private    json.RawMessage `json:"private_jwk"`
		Public     json.RawMessage `json:"public_jwk"`
		Thumbprint string          `json:"thumbprint_sha256_b64url"`
	}
	if err := json.Unmarshal(readTestdata(t, "rfc8037/ed25519_jwk_and_jws.json"), &v); err != nil {
		t.Fatal(err)
	}
	const want = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
	if v.Thumbprint != want {
		t.Fatalf("testdata thumbprint = %q", v.Thumbprint)
	}
	pub, err := key.ParseHolderPublic(v.Public)
	if err != nil {
		t.Fatal(err)
	}
	if got := pub.Thumbprint(); got != want {
		t.Fatalf("Thumbprint = %q", got)
	}
	priv, err := key.ParseHolder(v.Private)
	if err != nil {
		t.Fatal(err)
	}
	if got := priv.Thumbprint(); got != want {
		t.Fatalf("holder Thumbprint = %q", got)
	}
	if _, err := key.ParseHolderPublic(v.Private); err == nil {
		t.Fatal("ParseHolderPublic accepted a private key")
	}
}
