package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/base64"
	"strings"

	"github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"
)

// The reference proof check: go-jose parses the JWS, its header and the
// jwk, and verifies the signature, as verifyJWS once did, through go-jose.
// verifyJWS must agree with it on every proof (FuzzVerifyJWS,
// TestVerifyJWSProperty) except where go-jose refuses what spec/FORMAT.md
// accepts, or accepts what it refuses (goJoseDiffers, the table of
// TestGoJoseDiffers, and TestCoordinateNewline), where the spec wins.

// referenceVerifyJWS is verifyJWS by go-jose.
func referenceVerifyJWS(proof string, st *settings) (*jose.JSONWebKey, []byte, *Error) {
	if len(proof) > MaxProofBytes {
		return nil, nil, refuse(CheckSize, "too long")
	}
	if e := checkShape(proof); e != nil {
		return nil, nil, e
	}
	if e := checkHeaderText(proof[:strings.IndexByte(proof, '.')]); e != nil {
		return nil, nil, e
	}
	jws, err := jose.ParseSignedCompact(proof, st.algs)
	if err != nil {
		return nil, nil, referenceDiagnose(proof, st.algs)
	}
	if len(jws.Signatures) != 1 {
		return nil, nil, refuse(CheckSyntax, "not exactly one signature")
	}
	sig := &jws.Signatures[0]
	if u := &sig.Unprotected; u.Algorithm != "" || u.KeyID != "" || u.Nonce != "" ||
		u.JSONWebKey != nil || len(u.ExtraHeaders) != 0 {
		return nil, nil, refuse(CheckSyntax, "unprotected header present")
	}
	jwk, alg, e := referenceCheckHeader(&sig.Protected, st.algs)
	if e != nil {
		return nil, nil, e
	}
	if alg == Ed25519 {
		// go-jose v4.1.9 verifies Ed25519 signatures under the name
		// EdDSA only (RFC 9864 came after it); the signature is the
		// same, over the same signing input (RFC 7515 §5.2).
		input := proof[:strings.LastIndexByte(proof, '.')]
		if !ed25519.Verify(jwk.Key.(ed25519.PublicKey), []byte(input), sig.Signature) {
			return nil, nil, refuse(CheckSignature, "does not verify with the jwk")
		}
		return jwk, jws.UnsafePayloadWithoutVerification(), nil
	}
	payload, err := jws.Verify(jwk.Key)
	if err != nil {
		return nil, nil, refuse(CheckSignature, "does not verify with the jwk")
	}
	return jwk, payload, nil
}

// referenceCheckHeader runs the typ, alg and jwk checks on a protected
// header that go-jose has parsed, and returns the key and algorithm.
func referenceCheckHeader(h *jose.Header, allowed []jose.SignatureAlgorithm) (*jose.JSONWebKey, jose.SignatureAlgorithm, *Error) {
	for _, name := range referenceForbidden {
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
	if !referenceKeyMatchesAlg(jwk.Key, alg) {
		return nil, "", refuse(CheckJWK, "key type does not match alg")
	}
	if jwk.Algorithm != "" && jwk.Algorithm != string(alg) {
		return nil, "", refuse(CheckJWK, "key alg member does not match header alg")
	}
	return jwk, alg, nil
}

var referenceForbidden = [...]jose.HeaderKey{"crit", "b64"}

var referencePrivate = [...]string{"d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv"}

// referenceKeyMatchesAlg reports whether a public key has the type alg needs.
func referenceKeyMatchesAlg(key any, alg jose.SignatureAlgorithm) bool {
	switch alg {
	case jose.ES256:
		k, ok := key.(*ecdsa.PublicKey)
		return ok && k != nil && k.Curve == elliptic.P256()
	case jose.EdDSA, Ed25519:
		k, ok := key.(ed25519.PublicKey)
		return ok && len(k) == ed25519.PublicKeySize
	}
	return false
}

// referenceDiagnose names the check that failed when go-jose refused to
// parse a proof that passed checkShape, walking the header checks in the
// order of the success path; anything else is a syntax error.
func referenceDiagnose(proof string, allowed []jose.SignatureAlgorithm) *Error {
	enc, _, _ := strings.Cut(proof, ".")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return refuse(CheckSyntax, "header is not base64url")
	}
	var hdr map[string]josejson.RawMessage
	if err := josejson.Unmarshal(raw, &hdr); err != nil || hdr == nil {
		return refuse(CheckSyntax, "header is not a json object without duplicate members")
	}
	for _, name := range referenceForbidden {
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
	for _, m := range referencePrivate {
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
	if !referenceKeyMatchesAlg(jwk.Key, jose.SignatureAlgorithm(alg)) {
		return refuse(CheckJWK, "key type does not match alg")
	}
	if jwk.Algorithm != "" && jwk.Algorithm != alg {
		return refuse(CheckJWK, "key alg member does not match header alg")
	}
	return refuse(CheckSyntax, "malformed jws")
}

// joseThumbprint is go-jose's RFC 7638 thumbprint, base64url.
func joseThumbprint(jwk *jose.JSONWebKey) (string, error) {
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}
