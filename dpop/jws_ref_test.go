package dpop

import (
	"bytes"
	"crypto"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// checkStep orders the checks of steps 1–6.
var checkStep = map[Check]int{CheckSize: 1, CheckSyntax: 2, CheckTyp: 3, CheckAlg: 4, CheckJWK: 5, CheckSignature: 6}

// agreeJWS holds verifyJWS to referenceVerifyJWS on one proof: the same
// decision, the same refusing check, the same key and payload; except
// where goJoseDiffers names a rule on which go-jose and spec/FORMAT.md
// part, and there the spec's way: where go-jose refuses more, verifyJWS
// refuses no earlier than go-jose's syntax or jwk refusal; where it
// accepts more, verifyJWS refuses by syntax or jwk, no later than go-jose.
func agreeJWS(t fataler, proof string, algs []jose.SignatureAlgorithm) {
	t.Helper()
	st := &settings{algs: algs}
	k, payload, e := verifyJWS(proof, st)
	rk, rpayload, re := referenceVerifyJWS(proof, st)
	if (e == nil) != (k != nil) {
		t.Fatalf("verifyJWS: key %v with error %v", k, e)
	}
	if e == nil && re == nil {
		if !bytes.Equal(payload, rpayload) {
			t.Fatalf("payload %q, go-jose %q", payload, rpayload)
		}
		if !publicEqual(k, rk) {
			t.Fatalf("key %v, go-jose %v", k.jose().Key, rk.Key)
		}
		if ref, err := joseThumbprint(rk); err != nil || ref != k.Thumbprint() {
			t.Fatalf("thumbprint %s, go-jose %s (%v)", k.Thumbprint(), ref, err)
		}
		return
	}
	if e != nil && re != nil && e.Check == re.Check {
		return
	}
	more, less := goJoseDiffers(proof)
	step := func(x *Error) int {
		if x == nil {
			return 7
		}
		return checkStep[x.Check]
	}
	switch {
	case more && re != nil && (re.Check == CheckSyntax || re.Check == CheckJWK) && step(e) >= step(re):
	case less && e != nil && (e.Check == CheckSyntax || e.Check == CheckJWK) && step(re) >= step(e):
	default:
		t.Fatalf("verifyJWS: %v; go-jose: %v (go-jose refuses more: %v, accepts more: %v)\n%s", e, re, more, less, headerOf(proof))
	}
}

func publicEqual(k *publicKey, rk *jose.JSONWebKey) bool {
	type equaler interface{ Equal(crypto.PublicKey) bool }
	pub, ok := k.jose().Key.(equaler)
	return ok && pub.Equal(rk.Key)
}

func headerOf(proof string) []byte {
	enc, _, _ := strings.Cut(proof, ".")
	b, _ := base64.RawURLEncoding.DecodeString(enc)
	return b
}

// goJoseDiffers reports whether the protected header of proof, which
// must have passed checkShape and checkHeaderText for this to matter,
// has a member on which go-jose (v4.1.9: rawHeader.sanitized,
// JSONWebKey.unmarshalJSON) and spec/FORMAT.md §4.4–§4.5 part:
//
// go-jose refuses more (more): a header "kid" or "nonce" that is not a
// string or null, an "x5c" that is not null and not a list of base64
// X.509 certificates; a jwk "kid", "use", "x5u", "x5t" or "x5t#S256"
// that is not a string or null, an "x5u" that is not a URL, an "x5t" or
// "x5t#S256" that is not base64url of the digest (or its hex) or does
// not match the certificate, an "x5c" as in the header or whose leaf key
// is not the jwk's, an "n", "e", "pub" (or "y" of an OKP key) that is
// not null, a string of base64url. The spec ignores all of these.
//
// go-jose accepts more (less): "crit" or "b64" with the value null (which
// go-jose treats as absent); a private member of the jwk with the value
// null, or "oth" with any; a jwk "alg" of null or ""; an x or y whose string
// holds a CR or LF (go-jose's base64 decoder skips them). The spec
// refuses all of these.
func goJoseDiffers(proof string) (more, less bool) {
	var hdr map[string]json.RawMessage
	if json.Unmarshal(headerOf(proof), &hdr) != nil {
		return false, false
	}
	isNull := func(v json.RawMessage) bool { return string(v) == "null" }
	notString := func(v json.RawMessage) bool {
		var s string
		return v != nil && !isNull(v) && json.Unmarshal(v, &s) != nil
	}
	for _, m := range []string{"crit", "b64"} {
		if v, ok := hdr[m]; ok && isNull(v) {
			less = true
		}
	}
	if notString(hdr["kid"]) || notString(hdr["nonce"]) || badCerts(hdr["x5c"]) != nil {
		more = true
	}
	var jwk map[string]json.RawMessage
	if v, ok := hdr["jwk"]; !ok || json.Unmarshal(v, &jwk) != nil {
		return more, less
	}
	for _, m := range []string{"d", "p", "q", "dp", "dq", "qi", "k", "priv", "alg"} {
		if v, ok := jwk[m]; ok && isNull(v) {
			less = true
		}
	}
	if _, ok := jwk["oth"]; ok {
		less = true
	}
	if v, ok := jwk["alg"]; ok && string(v) == `""` {
		less = true // go-jose reads an empty alg as none
	}
	for _, m := range []string{"x", "y"} {
		var s string
		if json.Unmarshal(jwk[m], &s) == nil && strings.ContainsAny(s, "\r\n") {
			less = true
		}
	}
	for _, m := range []string{"kid", "use", "x5u", "x5t", "x5t#S256"} {
		if notString(jwk[m]) {
			more = true
		}
	}
	var s string
	if json.Unmarshal(jwk["x5u"], &s) == nil {
		if _, err := url.Parse(s); err != nil {
			more = true
		}
	}
	certs := badCerts(jwk["x5c"])
	if certs != nil && len(certs) == 0 {
		more = true
	}
	if len(certs) > 0 {
		more = true // a leaf key equal to the jwk's: never made by the tests
	}
	for m, size := range map[string]int{"x5t": sha1.Size, "x5t#S256": sha256.Size} {
		if json.Unmarshal(jwk[m], &s) == nil && !goodDigest(s, size) {
			more = true
		}
	}
	members := []string{"n", "e", "pub"}
	var kty string
	if json.Unmarshal(jwk["kty"], &kty) == nil && kty != "EC" {
		members = append(members, "y")
	}
	for _, m := range members {
		v, ok := jwk[m]
		if !ok || isNull(v) {
			continue
		}
		if json.Unmarshal(v, &s) != nil {
			more = true
		} else if _, err := base64.RawURLEncoding.DecodeString(s); err != nil {
			more = true
		}
	}
	return more, less
}

// badCerts returns nil for an absent or null x5c, or an empty list; the
// certificates when it is a list of base64 certificates; an empty non-nil
// slice otherwise.
func badCerts(v json.RawMessage) []*x509.Certificate {
	if v == nil || string(v) == "null" {
		return nil
	}
	var list []string
	if json.Unmarshal(v, &list) != nil {
		return []*x509.Certificate{}
	}
	var certs []*x509.Certificate
	for _, c := range list {
		der, err := base64.StdEncoding.DecodeString(c)
		if err != nil {
			return []*x509.Certificate{}
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			return []*x509.Certificate{}
		}
		certs = append(certs, cert)
	}
	return certs
}

func goodDigest(s string, size int) bool {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return false
	}
	if len(b) == 2*size {
		if b, err = hex.DecodeString(string(b)); err != nil {
			return false
		}
	}
	return len(b) == 0 || len(b) == size
}

// proofKeys are the two keys the hand-made proofs are signed with.
func proofKeys(t testing.TB) map[jose.SignatureAlgorithm]*key.Holder {
	keys := map[jose.SignatureAlgorithm]*key.Holder{}
	for alg, a := range map[jose.SignatureAlgorithm]key.Alg{jose.ES256: key.ES256, jose.EdDSA: key.Ed25519} {
		h, err := fixedkey.Holder(a, "tickettool dpop jws ref, key see")
		if err != nil {
			t.Fatal(err)
		}
		keys[alg] = h
	}
	return keys
}

// publicMembers returns the public jwk of h as JSON members, without
// braces and without "alg".
func publicMembers(h *key.Holder) string {
	var m map[string]any
	if err := json.Unmarshal(h.Public().JWK(), &m); err != nil {
		panic(err)
	}
	delete(m, "alg")
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b[1 : len(b)-1])
}

// signProof returns the compact JWS of the header and payload texts,
// signed by h.
func signProof(t fataler, h *key.Holder, hdr, payload string) string {
	input := base64.RawURLEncoding.EncodeToString([]byte(hdr)) + "." + base64.RawURLEncoding.EncodeToString([]byte(payload))
	sig, err := h.Sign([]byte(input))
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

const refPayload = `{"jti":"j","htm":"POST","htu":"https://h/","iat":1700000000}`
