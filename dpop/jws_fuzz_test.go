package dpop

import (
	"crypto/elliptic"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/key"
)

// vectorProofs returns every proof of the dpop vectors of
// spec/vectors/tickets.json.
func vectorProofs(t testing.TB) []string {
	b, err := os.ReadFile("../spec/vectors/tickets.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Vectors []struct {
			Name     string `json:"name"`
			Requests []struct {
				DPoP *struct {
					Proof string `json:"proof"`
				} `json:"dpop"`
			} `json:"requests"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var proofs []string
	for _, vec := range v.Vectors {
		for _, r := range vec.Requests {
			if strings.HasPrefix(vec.Name, "dpop/") && r.DPoP != nil && r.DPoP.Proof != "" {
				proofs = append(proofs, r.DPoP.Proof)
			}
		}
	}
	if len(proofs) < 100 {
		t.Fatalf("only %d dpop vector proofs", len(proofs))
	}
	return proofs
}

// edgeHeaders are protected headers at the edges of steps 2–5 (and of the
// JWK rules of §4.4) for the ES256 key (es) and the Ed25519 key (ed),
// given as their jwk members.
func edgeHeaders(es, ed string) []string {
	h := func(alg, jwk string) string { return `{"typ":"dpop+jwt","alg":"` + alg + `","jwk":{` + jwk + `}}` }
	var out []string
	for _, d := range divergences() {
		jwk := es
		if d.alg == jose.EdDSA {
			jwk = ed
		}
		out = append(out, `{"typ":"dpop+jwt","alg":"`+string(d.alg)+`"`+d.hdr+`,"jwk":{`+jwk+d.jwk+`}}`)
	}
	x := func(jwk string) string { // the x coordinate's text
		i := strings.Index(jwk, `"x":"`) + 5
		return jwk[i : i+43]
	}
	withX := func(jwk, nx string) string { return strings.Replace(jwk, x(jwk), nx, 1) }
	// Ed25519 keys of small order (spec/FORMAT.md §4.2).
	for _, s := range []string{
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000080",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	} {
		b, _ := hex.DecodeString(s)
		out = append(out, h("EdDSA", withX(ed, base64.RawURLEncoding.EncodeToString(b))))
	}
	nx := x(ed)
	last := nx[42]
	out = append(out,
		h("EdDSA", withX(ed, nx[:42]+string(last^1))),                                 // unused trailing bits set (or another key)
		h("EdDSA", strings.Replace(ed, nx, nx[:42], 1)),                               // 31 bytes
		h("EdDSA", strings.Replace(ed, nx, nx+"A", 1)),                                // 32 bytes and 6 bits
		h("EdDSA", strings.Replace(ed, nx, nx+nx, 1)),                                 // 64 bytes
		h("EdDSA", strings.Replace(ed, nx, nx[:21]+`\n`+nx[22:], 1)),                  // 43 characters with a newline
		h("EdDSA", strings.Replace(ed, nx, nx+"=", 1)),                                // padding
		h("EdDSA", strings.Replace(ed, nx, nx[:20]+`\u0041`+nx[21:], 1)),              // an escape
		h("EdDSA", strings.Replace(ed, nx, nx[:20]+"+"+nx[21:], 1)),                   // std alphabet
		h("ES256", withX(es, base64.RawURLEncoding.EncodeToString(make([]byte, 32)))), // off the curve
		h("ES256", strings.Replace(es, `"P-256"`, `"P-384"`, 1)),
		h("ES256", strings.Replace(es, `"EC"`, `"ec"`, 1)),
		h("ES256", strings.Replace(es, `"kty"`, `"KTY"`, 1)),
		h("ES256", ed), h("EdDSA", es),
		h("ES256", es+`,"alg":"ES256"`), h("ES256", es+`,"alg":"EdDSA"`), h("ES256", es+`,"alg":5`),
		h("EdDSA", ed+`,"y":"AA","x5u":"https://x/"`),
		h("EdDSA", ed+`,"ext":{"a":[1,{"b":null}]}`),
		`{"typ":"dpop\u002bjwt","al\u0067":"EdDSA","jwk":{`+ed+`}}`,
		`{"typ":"dpop+jwt","alg":"EdDSA","jwk":null}`,
		`{"typ":"dpop+jwt","alg":"EdDSA","jwk":[]}`,
		`{"typ":"dpop+jwt","alg":"EdDSA"}`,
		`{"typ":null,"alg":"EdDSA","jwk":{`+ed+`}}`,
		`{"typ":"dpop+jwt","alg":null,"jwk":{`+ed+`}}`,
		`{"typ":"dpop+jwt","alg":"none","jwk":{`+ed+`}}`,
		`{"typ":"dpop+jwt","alg":"HS256","jwk":{"kty":"oct","k":"AA"}}`,
		`{"typ":"dpop+jwt","alg":"EdDSA","crit":["b64"],"b64":false,"jwk":{`+ed+`}}`,
		`{"typ":"dpop+jwt","alg":"EdDSA","jwk":{`+ed+`},"x5c":[]}`,
		` {"typ":"dpop+jwt","alg":"ES256","jwk":{`+es+`}} `,
	)
	return out
}

// highS returns an ES256 signature of input by h with the high form of s.
func highS(t testing.TB, h *key.Holder, input string) []byte {
	sig, err := h.Sign([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	n := elliptic.P256().Params().N
	s := new(big.Int).SetBytes(sig[32:])
	new(big.Int).Sub(n, s).FillBytes(sig[32:])
	return sig
}

// FuzzVerifyJWS holds verifyJWS to referenceVerifyJWS (agreeJWS). With
// raw empty, the proof is the header and payload texts signed by the
// ES256 (signer 0) or the Ed25519 key (1), or unsigned (2); else raw is
// the proof. allow picks the allow-list: all three, ES256, EdDSA or
// Ed25519.
func FuzzVerifyJWS(f *testing.F) {
	keys := proofKeys(f)
	es, ed := publicMembers(keys[jose.ES256]), publicMembers(keys[jose.EdDSA])
	for _, p := range vectorProofs(f) {
		f.Add("", "", uint8(0), p, uint8(0))
	}
	for _, file := range []string{"proof_token_request.jwt", "proof_refresh_request.jwt", "proof_resource_request_with_ath.jwt"} {
		b, err := os.ReadFile("testdata/rfc9449/" + file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("", "", uint8(0), strings.TrimSpace(string(b)), uint8(0))
	}
	if b, err := os.ReadFile("testdata/independent/panva-dpop-2.1.2-ed25519.jwt"); err == nil {
		f.Add("", "", uint8(0), strings.TrimSpace(string(b)), uint8(0))
	} else {
		f.Fatal(err)
	}
	for i, hdr := range edgeHeaders(es, ed) {
		f.Add(hdr, refPayload, uint8(i%2), "", uint8(0))
		if strings.Contains(hdr, `"ES256"`) {
			f.Add(hdr, refPayload, uint8(0), "", uint8(2))
		}
	}
	for _, s := range jsonSeeds() { // FuzzHeaderText's seeds, as headers and payloads
		f.Add(s, refPayload, uint8(1), "", uint8(0))
		f.Add(`{"typ":"dpop+jwt","alg":"EdDSA","jwk":{`+ed+`}}`, s, uint8(1), "", uint8(0))
	}
	// A high-S ES256 signature (accepted in a proof, §4.5 step 6) and a
	// signature one byte short.
	input := base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"dpop+jwt","alg":"ES256","jwk":{`+es+`}}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(refPayload))
	sig := highS(f, keys[jose.ES256], input)
	f.Add("", "", uint8(0), input+"."+base64.RawURLEncoding.EncodeToString(sig), uint8(0))
	f.Add("", "", uint8(0), input+"."+base64.RawURLEncoding.EncodeToString(sig[:63]), uint8(0))
	f.Fuzz(func(t *testing.T, hdr, payload string, signer uint8, raw string, allow uint8) {
		agreeJWS(t, fuzzProof(t, keys, hdr, payload, signer, raw), allowList(allow))
	})
}

func fuzzProof(t testing.TB, keys map[jose.SignatureAlgorithm]*key.Holder, hdr, payload string, signer uint8, raw string) string {
	if raw != "" {
		return raw
	}
	switch signer % 3 {
	case 0:
		return signProof(t, keys[jose.ES256], hdr, payload)
	case 1:
		return signProof(t, keys[jose.EdDSA], hdr, payload)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(hdr)) + "." + base64.RawURLEncoding.EncodeToString([]byte(payload)) + ".AAAA"
}

func allowList(allow uint8) []jose.SignatureAlgorithm {
	switch allow % 4 {
	case 1:
		return []jose.SignatureAlgorithm{jose.ES256}
	case 2:
		return []jose.SignatureAlgorithm{jose.EdDSA}
	case 3:
		return []jose.SignatureAlgorithm{Ed25519}
	}
	return supportedAlgorithms[:]
}

func TestVerifyJWSSeeds(t *testing.T) {
	keys := proofKeys(t)
	es, ed := publicMembers(keys[jose.ES256]), publicMembers(keys[jose.EdDSA])
	for _, p := range vectorProofs(t) {
		agreeJWS(t, p, supportedAlgorithms[:])
	}
	accepted := 0
	for i, hdr := range edgeHeaders(es, ed) {
		p := signProof(t, keys[[]jose.SignatureAlgorithm{jose.ES256, jose.EdDSA}[i%2]], hdr, refPayload)
		agreeJWS(t, p, supportedAlgorithms[:])
		if _, _, e := verifyJWS(p, &settings{algs: supportedAlgorithms[:]}); e == nil {
			accepted++
		}
	}
	if accepted == 0 {
		t.Fatal("no edge header accepted")
	}
}

// TestHighS: either form of an ES256 signature's s verifies in a proof
// (spec/FORMAT.md §4.5 step 6), as with go-jose.
func TestHighS(t *testing.T) {
	keys := proofKeys(t)
	hdr := `{"typ":"dpop+jwt","alg":"ES256","jwk":{` + publicMembers(keys[jose.ES256]) + `}}`
	input := base64.RawURLEncoding.EncodeToString([]byte(hdr)) + "." + base64.RawURLEncoding.EncodeToString([]byte(refPayload))
	proof := input + "." + base64.RawURLEncoding.EncodeToString(highS(t, keys[jose.ES256], input))
	if _, _, e := verifyJWS(proof, &settings{algs: supportedAlgorithms[:]}); e != nil {
		t.Fatal(e)
	}
	agreeJWS(t, proof, supportedAlgorithms[:])
}

// TestVerifyJWSProperty generates headers near the rules of steps 2–5
// (members of the header and of the jwk, each valid or not, the
// divergences among them), signs them with either key, and holds
// verifyJWS to go-jose (agreeJWS).
func TestVerifyJWSProperty(t *testing.T) {
	keys := proofKeys(t)
	pub := map[jose.SignatureAlgorithm]string{jose.ES256: publicMembers(keys[jose.ES256]), jose.EdDSA: publicMembers(keys[jose.EdDSA])}
	values := []string{`null`, `5`, `"x"`, `""`, `[]`, `["AAAA"]`, `{}`, `{"a":1}`, `true`, `"ES256"`, `"EdDSA"`, `"Ed25519"`, `"AA"`, `"%zz"`, `"dpop+jwt"`}
	headerNames := []string{"kid", "nonce", "x5c", "crit", "b64", "typ", "alg", "jku", "cty", "x", "Typ"}
	jwkNames := []string{"kid", "use", "key_ops", "x5c", "x5u", "x5t", "x5t#S256", "n", "e", "pub", "y", "alg", "d", "oth", "k", "priv", "crv", "kty", "ext"}
	rapid.Check(t, func(rt *rapid.T) {
		alg := rapid.SampledFrom([]jose.SignatureAlgorithm{jose.ES256, jose.EdDSA}).Draw(rt, "alg")
		hdrAlg := rapid.SampledFrom([]string{string(alg), string(alg), "none", "HS256", "ES384", "Ed25519", "ed25519"}).Draw(rt, "header alg")
		typ := rapid.SampledFrom([]string{`"dpop+jwt"`, `"dpop+jwt"`, `"dpop\u002bjwt"`, `"JWT"`, `5`}).Draw(rt, "typ")
		keyAlg := alg
		if rapid.IntRange(0, 9).Draw(rt, "other key") == 0 {
			keyAlg = map[jose.SignatureAlgorithm]jose.SignatureAlgorithm{jose.ES256: jose.EdDSA, jose.EdDSA: jose.ES256}[alg]
		}
		members := map[string]string{"typ": typ, "alg": `"` + hdrAlg + `"`}
		jwkMembers := map[string]string{}
		for range rapid.IntRange(0, 3).Draw(rt, "header extras") {
			members[rapid.SampledFrom(headerNames).Draw(rt, "name")] = rapid.SampledFrom(values).Draw(rt, "value")
		}
		for range rapid.IntRange(0, 3).Draw(rt, "jwk extras") {
			jwkMembers[rapid.SampledFrom(jwkNames).Draw(rt, "jwk name")] = rapid.SampledFrom(values).Draw(rt, "jwk value")
		}
		var hdr strings.Builder
		hdr.WriteString(`{"jwk":{` + pub[keyAlg])
		for n, v := range jwkMembers {
			if !strings.Contains(pub[keyAlg], `"`+n+`"`) {
				hdr.WriteString(`,"` + n + `":` + v)
			}
		}
		hdr.WriteString(`}`)
		for n, v := range members {
			hdr.WriteString(`,"` + n + `":` + v)
		}
		hdr.WriteString(`}`)
		signer := rapid.SampledFrom([]jose.SignatureAlgorithm{alg, alg, alg, jose.ES256, jose.EdDSA}).Draw(rt, "signer")
		proof := signProof(rt, keys[signer], hdr.String(), refPayload)
		agreeJWS(rt, proof, allowList(rapid.Uint8().Draw(rt, "allow")))
	})
}
