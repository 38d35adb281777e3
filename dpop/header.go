package dpop

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/base64"
	"strings"

	"github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"
)

// checkShape is the syntax check that precedes parsing: one compact JWS,
// three parts of canonical unpadded base64url. It refuses the JSON
// serializations (which may carry unprotected headers or several
// signatures), whitespace and padding.
func checkShape(proof string) *Error {
	if proof == "" {
		return refuse(CheckSyntax, "empty proof")
	}
	start, parts := 0, 0
	for i := 0; i <= len(proof); i++ {
		if i < len(proof) && proof[i] != '.' {
			if b64Values[proof[i]] == 0xff {
				return refuse(CheckSyntax, "not a compact jws")
			}
			continue
		}
		if parts == 3 || !canonicalB64Len(proof[start:i]) {
			return refuse(CheckSyntax, "not a compact jws")
		}
		parts++
		start = i + 1
	}
	if parts != 3 {
		return refuse(CheckSyntax, "not a compact jws with three parts")
	}
	return nil
}

// b64Values maps a base64url character to its value, others to 0xff.
var b64Values = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// canonicalB64Len reports whether s (already known to use the base64url
// alphabet) has a valid unpadded length and zero unused trailing bits, so
// that each byte string has exactly one accepted encoding.
func canonicalB64Len(s string) bool {
	switch len(s) % 4 {
	case 1:
		return false
	case 2:
		return b64Values[s[len(s)-1]]&0x0f == 0
	case 3:
		return b64Values[s[len(s)-1]]&0x03 == 0
	}
	return true
}

// checkHeader runs the typ, alg and jwk checks on a protected header that
// go-jose has parsed, and returns the key and algorithm.
func checkHeader(h *jose.Header, allowed []jose.SignatureAlgorithm) (*jose.JSONWebKey, jose.SignatureAlgorithm, *Error) {
	for _, name := range forbiddenHeaders {
		if _, ok := h.ExtraHeaders[name]; ok {
			return nil, "", refuse(CheckSyntax, "header parameter "+string(name)+" not supported")
		}
	}
	if typ, ok := h.ExtraHeaders[jose.HeaderType].(string); !ok || typ != typDPoP {
		return nil, "", refuse(CheckTyp, "not dpop+jwt")
	}
	alg := jose.SignatureAlgorithm(h.Algorithm)
	if !algAllowed(alg, allowed) {
		return nil, "", refuse(CheckAlg, "not on the allow-list")
	}
	jwk := h.JSONWebKey
	if jwk == nil {
		return nil, "", refuse(CheckJWK, "missing")
	}
	if !jwk.Valid() || !jwk.IsPublic() {
		return nil, "", refuse(CheckJWK, "not a public key")
	}
	if !keyMatchesAlg(jwk.Key, alg) {
		return nil, "", refuse(CheckJWK, "key type does not match alg")
	}
	if jwk.Algorithm != "" && jwk.Algorithm != string(alg) {
		return nil, "", refuse(CheckJWK, "key alg member does not match header alg")
	}
	return jwk, alg, nil
}

// forbiddenHeaders are header parameters that would change how the
// signature is computed or checked; no DPoP proof needs them.
var forbiddenHeaders = [...]jose.HeaderKey{"crit", "b64"}

func algAllowed(alg jose.SignatureAlgorithm, allowed []jose.SignatureAlgorithm) bool {
	if neverAllowed(alg) {
		return false
	}
	for _, a := range allowed {
		if a == alg {
			return true
		}
	}
	return false
}

// neverAllowed reports algorithms refused whatever the caller says: none
// and the symmetric HMAC family (RFC 9449 §4.3 step 5).
func neverAllowed(alg jose.SignatureAlgorithm) bool {
	return alg == "" || strings.EqualFold(string(alg), "none") || strings.HasPrefix(strings.ToUpper(string(alg)), "HS")
}

// keyMatchesAlg reports whether a public key has the type alg needs.
func keyMatchesAlg(key any, alg jose.SignatureAlgorithm) bool {
	switch alg {
	case jose.ES256:
		k, ok := key.(*ecdsa.PublicKey)
		return ok && k != nil && k.Curve == elliptic.P256()
	case jose.EdDSA:
		k, ok := key.(ed25519.PublicKey)
		return ok && len(k) == ed25519.PublicKeySize
	}
	return false
}

// privateMembers are JWK members that hold private or symmetric key
// material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
var privateMembers = [...]string{"d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv"}

// diagnose names the check that failed when go-jose refused to parse a
// proof that passed checkShape. It walks the header checks in the same
// order as the success path, so the reported check does not depend on
// go-jose internals; anything else is a syntax error.
func diagnose(proof string, allowed []jose.SignatureAlgorithm) *Error {
	enc, _, _ := strings.Cut(proof, ".")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return refuse(CheckSyntax, "header is not base64url")
	}
	var hdr map[string]josejson.RawMessage
	if err := josejson.Unmarshal(raw, &hdr); err != nil || hdr == nil {
		return refuse(CheckSyntax, "header is not a json object without duplicate members")
	}
	for _, name := range forbiddenHeaders {
		if _, ok := hdr[string(name)]; ok {
			return refuse(CheckSyntax, "header parameter "+string(name)+" not supported")
		}
	}
	var typ, alg string
	if josejson.Unmarshal(hdr["typ"], &typ) != nil || typ != typDPoP {
		return refuse(CheckTyp, "not dpop+jwt")
	}
	if josejson.Unmarshal(hdr["alg"], &alg) != nil || !algAllowed(jose.SignatureAlgorithm(alg), allowed) {
		return refuse(CheckAlg, "not on the allow-list")
	}
	rawKey, ok := hdr["jwk"]
	if !ok {
		return refuse(CheckJWK, "missing")
	}
	var members map[string]josejson.RawMessage
	if err := josejson.Unmarshal(rawKey, &members); err != nil || members == nil {
		return refuse(CheckJWK, "not a json object without duplicate members")
	}
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return refuse(CheckJWK, "contains private or symmetric key material")
		}
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(rawKey); err != nil {
		return refuse(CheckJWK, "invalid key")
	}
	if !jwk.Valid() || !jwk.IsPublic() {
		return refuse(CheckJWK, "not a public key")
	}
	if !keyMatchesAlg(jwk.Key, jose.SignatureAlgorithm(alg)) {
		return refuse(CheckJWK, "key type does not match alg")
	}
	if jwk.Algorithm != "" && jwk.Algorithm != alg {
		return refuse(CheckJWK, "key alg member does not match header alg")
	}
	return refuse(CheckSyntax, "malformed jws")
}

// checkHeaderText holds the protected header to the payload's lexical
// rules (spec/FORMAT.md §4.5 step 2) before go-jose decodes it: one JSON
// object in valid UTF-8, without lone surrogate escapes, no value nested
// deeper than maxJSONDepth, no object with two members named alike.
// go-jose's decoder would replace invalid UTF-8 and lone surrogates with
// U+FFFD and accept any depth, which a second implementation's strict
// decoder would not, and it skips the unknown members of the jwk
// unchecked (TestGoJoseLacks). enc is canonical base64url (checkShape).
func checkHeaderText(enc string) *Error {
	var small [512]byte // a usual header is about 200 bytes
	buf := small[:]
	if m := base64.RawURLEncoding.DecodedLen(len(enc)); m > len(buf) {
		buf = make([]byte, m)
	}
	n, err := base64.RawURLEncoding.Decode(buf, []byte(enc))
	if err != nil {
		return refuse(CheckSyntax, "malformed jws")
	}
	p := jparser{b: buf[:n], dups: true}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' || !p.skip(0) {
		return refuse(CheckSyntax, "header is not strict json")
	}
	p.ws()
	if p.i != len(p.b) {
		return refuse(CheckSyntax, "header is not strict json")
	}
	return nil
}
