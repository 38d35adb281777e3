package fuzz

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
)

// RFC 9449 example proofs, copied from the RFC text (the §4.1 DPoP header,
// equal to the §5 token-request proof; the §5 refresh-token request proof;
// the §7.1 protected-resource request proof with ath). They date from 2019
// and are checked with the clock at their iat. All three are signed by the
// §4.1 example EC P-256 key, whose RFC 7638 thumbprint is given in §6.1.
const (
	rfc9449JKT          = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
	rfc9449AccessToken  = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU" // §7.1
	rfc9449TokenRequest = "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg"
	rfc9449Refresh      = "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjY1Mjk2fQ.pAqut2IRDm_De6PR93SYmGBPXpwrAk90e8cP2hjiaG5QsGSuKDYW7_X620BxqhvYC8ynrrvZLTk41mSRroapUA"
	rfc9449Resource     = "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiJlMWozVl9iS2ljOC1MQUVCIiwiaHRtIjoiR0VUIiwiaHR1IjoiaHR0cHM6Ly9yZXNvdXJjZS5leGFtcGxlLm9yZy9wcm90ZWN0ZWRyZXNvdXJjZSIsImlhdCI6MTU2MjI2MjYxOCwiYXRoIjoiZlVIeU8ycjJaM0RaNTNFc05yV0JiMHhXWG9hTnk1OUlpS0NBcWtzbVFFbyJ9.2oW9RP35yRqzhrtNP86L-Ey71EOptxRimPPToA1plemAgR6pxHF8y6-yqyVnmcw6Fy1dqd-jfxSYoMxhAJpLjA"
)

// dpopCase is a fixed expectation, the clock, and the one valid proof of
// the case that the single-byte-change property mutates.
type dpopCase struct {
	name  string
	exp   dpop.Expectations
	now   time.Time
	valid string
}

var dpopCases = func() []dpopCase {
	alice := keys.alice
	tk := verifyCases[2].tk // a bound ticket: ath is over its text
	return []dpopCase{
		{"rfc9449-token-request", dpop.Expectations{Method: "POST", URI: "https://server.example.com/token", Thumbprint: rfc9449JKT},
			time.Unix(1562262616, 0), rfc9449TokenRequest},
		{"rfc9449-refresh-request", dpop.Expectations{Method: "POST", URI: "https://server.example.com/token", Thumbprint: rfc9449JKT},
			time.Unix(1562265296, 0), rfc9449Refresh},
		{"rfc9449-resource-request", dpop.Expectations{Method: "GET", URI: "https://resource.example.org/protectedresource",
			AccessToken: rfc9449AccessToken, Thumbprint: rfc9449JKT}, time.Unix(1562262618, 0), rfc9449Resource},
		{"eddsa-ticket-nonce", dpop.Expectations{Method: htm, URI: htu, Nonce: "nonce-1", AccessToken: tk.String(), Thumbprint: alice.jkt},
			now, must(dpop.Make(alice.key, htm, htu, dpop.MakeOptions{Nonce: "nonce-1", AccessToken: tk.String(), IssuedAt: now, JTI: "jti-nonce"}))},
		{"eddsa-plain", dpop.Expectations{Method: "GET", URI: "https://API.example.com:443/v1/./prices?q=1"},
			now, must(dpop.Make(alice.key, "GET", "https://api.example.com/v1/prices#frag", dpop.MakeOptions{IssuedAt: now.Add(-time.Minute), JTI: "jti-plain"}))},
	}
}()

var checkNames = map[dpop.Check]bool{
	dpop.CheckSize: true, dpop.CheckSyntax: true, dpop.CheckTyp: true, dpop.CheckAlg: true, dpop.CheckJWK: true,
	dpop.CheckSignature: true, dpop.CheckClaims: true, dpop.CheckHTM: true, dpop.CheckHTU: true, dpop.CheckIAT: true,
	dpop.CheckNonce: true, dpop.CheckATH: true, dpop.CheckJKT: true,
}

// FuzzCheckDPoP checks dpop.Verify against fixed expectations (one of
// dpopCases, chosen by which). Properties:
//   - a refusal is an *dpop.Error matching ErrInvalid (never
//     ErrExpectations: the expectations are valid), names a known check,
//     starts "dpop: <check>", and never quotes a proof longer than 64 bytes;
//   - an accepted proof is the case's valid proof (nothing else is signed by
//     a key the case trusts) and agrees with the expectations: htm, htu
//     after normalisation, iat window, thumbprint (recomputed from the
//     returned key), ath, nonce, replay key, RememberUntil;
//   - Check is deterministic;
//   - the case's valid proof with any single byte changed is refused;
//   - allocation stays within the stated bound (sampled).
func FuzzCheckDPoP(f *testing.F) {
	for i, c := range dpopCases {
		if _, err := dpop.Verify(c.valid, c.exp, c.now); err != nil {
			f.Fatalf("case %d %s: valid proof refused: %v", i, c.name, err)
		}
	}
	knownProofs()
	f.Fuzz(func(t *testing.T, proof string, which byte, off uint16, x byte) {
		c := pick(dpopCases, which)
		sampleAllocs(t, "dpop.Verify", len(proof), func() { dpop.Verify(proof, c.exp, c.now) })
		p, err := dpop.Verify(proof, c.exp, c.now)
		p2, err2 := dpop.Verify(proof, c.exp, c.now)
		if !reflect.DeepEqual(p, p2) || (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("Check is not deterministic: %v / %v", err, err2)
		}
		if err != nil {
			checkDPoPError(t, proof, p, err)
		} else {
			checkAcceptedProof(t, c, proof, p)
		}

		m, changed := mutate([]byte(c.valid), uint64(off), x)
		if p, err := dpop.Verify(string(m), c.exp, c.now); changed && err == nil {
			t.Fatalf("case %s: proof with byte %d ^ %#x accepted: %+v", c.name, int(off)%len(c.valid), x, p)
		} else if !changed && err != nil {
			t.Fatalf("case %s: valid proof refused: %v", c.name, err)
		} else if err != nil {
			checkDPoPError(t, string(m), p, err)
		}
	})
}

func checkDPoPError(t *testing.T, proof string, p *dpop.Proof, err error) {
	t.Helper()
	var de *dpop.Error
	switch {
	case p != nil:
		t.Fatalf("proof returned with error %v", err)
	case !errors.Is(err, dpop.ErrInvalid) || errors.Is(err, dpop.ErrExpectations):
		t.Fatalf("error %v: want ErrInvalid, not ErrExpectations", err)
	case !errors.As(err, &de) || !checkNames[de.Check]:
		t.Fatalf("error %v (%T) names no known check", err, err)
	case !strings.HasPrefix(err.Error(), "dpop: "+string(de.Check)):
		t.Fatalf("error %q does not start with dpop: %s", err, de.Check)
	case len(proof) > 64 && strings.Contains(err.Error(), proof):
		t.Fatalf("error quotes the proof: %q", err)
	case len(proof) > dpop.MaxProofBytes && de.Check != dpop.CheckSize:
		t.Fatalf("proof of %d bytes refused by %s, not size", len(proof), de.Check)
	}
}

func checkAcceptedProof(t *testing.T, c dpopCase, proof string, p *dpop.Proof) {
	t.Helper()
	if !knownProofs()[proof] {
		// Every proof a trusted key signed is a generated seed; the
		// fuzzer cannot sign, so anything else accepted is a forgery.
		// (ECDSA signatures are malleable, (r, s) and (r, n-s) both
		// verify, so a second valid ES256 proof exists for each RFC
		// proof; finding one by mutation would itself be remarkable.)
		t.Fatalf("case %s: accepted a proof nobody signed: %s", c.name, short(proof))
	}
	if p == nil || p.Key == nil {
		t.Fatal("accepted without a proof or key")
	}
	wantURI := must(dpop.NormalizeURI(c.exp.URI))
	gotURI, err := dpop.NormalizeURI(p.URI)
	var jkt string
	pub, jerr := key.ParseHolderPublic(must(p.Key.MarshalJSON()))
	if jerr == nil {
		jkt = pub.Thumbprint()
	}
	maxAge, skew := dpop.DefaultMaxAge, dpop.DefaultFutureSkew
	switch {
	case p.Method != c.exp.Method:
		t.Fatalf("accepted htm %q, expected %q", p.Method, c.exp.Method)
	case err != nil || gotURI != wantURI:
		t.Fatalf("accepted htu %q (%q, %v), expected %q", p.URI, gotURI, err, wantURI)
	case p.IssuedAt.Before(c.now.Add(-maxAge)) || p.IssuedAt.After(c.now.Add(skew)):
		t.Fatalf("iat %v outside the window at %v", p.IssuedAt, c.now)
	case jerr != nil || jkt != p.Thumbprint:
		t.Fatalf("thumbprint %q, recomputed %q, %v", p.Thumbprint, jkt, jerr)
	case c.exp.Thumbprint != "" && p.Thumbprint != c.exp.Thumbprint:
		t.Fatalf("thumbprint %q, expected %q", p.Thumbprint, c.exp.Thumbprint)
	case p.JTI == "" || len(p.JTI) > dpop.MaxJTIBytes:
		t.Fatalf("jti of %d bytes accepted", len(p.JTI))
	case p.ReplayKey != (dpop.ReplayKey{JTI: p.JTI, URI: wantURI}):
		t.Fatalf("replay key %+v", p.ReplayKey)
	case !p.RememberUntil.Equal(p.IssuedAt.Add(dpop.RememberFor)):
		t.Fatalf("remember until %v for iat %v", p.RememberUntil, p.IssuedAt)
	case len(proof) > dpop.MaxProofBytes || strings.Count(proof, ".") != 2:
		t.Fatalf("accepted a proof of %d bytes and %d dots", len(proof), strings.Count(proof, "."))
	}
}

// knownProofs are the proofs of the generated seeds and of dpopCases.
var knownProofs = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, s := range dpopSeeds() {
		m[s.args[0].(string)] = true
	}
	for _, c := range dpopCases {
		m[c.valid] = true
	}
	return m
})

// short abbreviates s for a failure message.
func short(s string) string {
	if len(s) <= 200 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:200], len(s))
}

// jws builds a compact JWS by hand, signed with Ed25519 key priv (or not
// signed at all when priv is nil), for seeds Make would never write.
func jws(header, payload string, priv ed25519.PrivateKey) string {
	e := base64.RawURLEncoding
	in := e.EncodeToString([]byte(header)) + "." + e.EncodeToString([]byte(payload))
	if priv == nil {
		return in + "."
	}
	return in + "." + e.EncodeToString(ed25519.Sign(priv, []byte(in)))
}
