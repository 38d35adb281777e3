package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"io"

	"github.com/go-jose/go-jose/v4"
	josejson "github.com/go-jose/go-jose/v4/json"

	"github.com/tickettool/tickettool/internal/randsrc"
)

var (
	errNotPublic   = errors.New("dpop: key is not a public key")
	errUnsupported = errors.New("dpop: unsupported key: want an ecdsa p-256 or ed25519 key")
	errPrivateJWK  = errors.New("dpop: invalid private jwk")
	errPublicJWK   = errors.New("dpop: invalid public jwk")
)

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of a public JWK,
// base64url without padding (the "jkt" of RFC 9449 §6.1). It refuses
// private and symmetric keys. Any public key type go-jose knows (EC, RSA,
// OKP Ed25519) is accepted, not only the two DPoP algorithms.
func Thumbprint(key *jose.JSONWebKey) (string, error) {
	if key == nil || isNilPointer(key.Key) || !key.Valid() || !key.IsPublic() {
		return "", errNotPublic
	}
	sum, err := key.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", errors.New("dpop: cannot compute thumbprint")
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}

// isNilPointer reports a typed nil key, on which go-jose would panic.
func isNilPointer(k any) bool {
	switch k := k.(type) {
	case *ecdsa.PublicKey:
		return k == nil
	case *ecdsa.PrivateKey:
		return k == nil
	case *rsa.PublicKey:
		return k == nil
	case *rsa.PrivateKey:
		return k == nil
	}
	return false
}

// ThumbprintOf returns the RFC 7638 SHA-256 thumbprint of a public key
// (*ecdsa.PublicKey, ed25519.PublicKey, *rsa.PublicKey).
func ThumbprintOf(pub crypto.PublicKey) (string, error) {
	return Thumbprint(&jose.JSONWebKey{Key: pub})
}

// NewKey generates a holder key for alg "ES256" (ECDSA P-256) or "EdDSA"
// (Ed25519) from crypto/rand. Tests that need the same key on every run
// use testing/cryptotest.SetGlobalRandom.
func NewKey(alg string) (crypto.Signer, error) {
	if r := randsrc.Fixed(); r != nil {
		return newKeyFrom(alg, r)
	}
	if jose.SignatureAlgorithm(alg) == jose.ES256 {
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	return newKeyFrom(alg, rand.Reader)
}

// newKeyFrom derives a holder key from r deterministically: an Ed25519 seed
// of 32 bytes; for P-256, 32-byte candidates until one lies in [1, n-1].
// The spec vector generator's holder keys are defined this way.
func newKeyFrom(alg string, r io.Reader) (crypto.Signer, error) {
	switch jose.SignatureAlgorithm(alg) {
	case jose.ES256:
		var buf [32]byte
		for range maxKeyAttempts {
			if _, err := io.ReadFull(r, buf[:]); err != nil {
				return nil, errors.New("dpop: reading randomness failed")
			}
			if k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), buf[:]); err == nil {
				return k, nil
			}
		}
		return nil, errors.New("dpop: randomness source is broken")
	case jose.EdDSA:
		seed := make([]byte, ed25519.SeedSize)
		if _, err := io.ReadFull(r, seed); err != nil {
			return nil, errors.New("dpop: reading randomness failed")
		}
		return ed25519.NewKeyFromSeed(seed), nil
	}
	return nil, errors.New("dpop: unsupported algorithm: want ES256 or EdDSA")
}

// algOf returns the DPoP algorithm of a public key, or "" if unsupported.
func algOf(pub crypto.PublicKey) jose.SignatureAlgorithm {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k != nil && k.Curve == elliptic.P256() {
			return jose.ES256
		}
	case ed25519.PublicKey:
		if len(k) == ed25519.PublicKeySize {
			return jose.EdDSA
		}
	}
	return ""
}

// MarshalPrivateJWK encodes a holder key (*ecdsa.PrivateKey on P-256, or
// ed25519.PrivateKey) as a private JWK with its "alg".
func MarshalPrivateJWK(key crypto.Signer) ([]byte, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k == nil || algOf(&k.PublicKey) == "" {
			return nil, errUnsupported
		}
		return jose.JSONWebKey{Key: k, Algorithm: string(jose.ES256)}.MarshalJSON()
	case ed25519.PrivateKey:
		if len(k) != ed25519.PrivateKeySize {
			return nil, errUnsupported
		}
		return jose.JSONWebKey{Key: k, Algorithm: string(jose.EdDSA)}.MarshalJSON()
	}
	return nil, errUnsupported
}

// MarshalPublicJWK encodes a public key (*ecdsa.PublicKey on P-256 or
// ed25519.PublicKey) as a public JWK with its "alg".
func MarshalPublicJWK(pub crypto.PublicKey) ([]byte, error) {
	alg := algOf(pub)
	if alg == "" {
		return nil, errUnsupported
	}
	return jose.JSONWebKey{Key: pub, Algorithm: string(alg)}.MarshalJSON()
}

// ParsePrivateJWK decodes a private JWK written by MarshalPrivateJWK: an EC
// P-256 or OKP Ed25519 key whose public members match its private part and
// whose "alg", if present, matches its type. Errors never quote the input.
func ParsePrivateJWK(data []byte) (crypto.Signer, error) {
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(data); err != nil {
		return nil, errPrivateJWK
	}
	switch k := jwk.Key.(type) {
	case *ecdsa.PrivateKey:
		if algOf(&k.PublicKey) == "" || !algMatches(jwk.Algorithm, jose.ES256) {
			return nil, errPrivateJWK
		}
		// go-jose does not check that d belongs to (x, y); rebuild the key
		// from d and compare. Bytes checks 1 <= d < n and that (x, y) is
		// on the curve; go-jose always sets d for a private EC JWK.
		d, err := k.Bytes()
		if err != nil {
			return nil, errPrivateJWK
		}
		priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
		if err != nil || !priv.PublicKey.Equal(&k.PublicKey) {
			return nil, errPrivateJWK
		}
		return priv, nil
	case ed25519.PrivateKey: // go-jose checks that x matches d
		if !algMatches(jwk.Algorithm, jose.EdDSA) {
			return nil, errPrivateJWK
		}
		return k, nil
	}
	return nil, errPrivateJWK
}

func algMatches(jwkAlg string, want jose.SignatureAlgorithm) bool {
	return jwkAlg == "" || jwkAlg == string(want)
}

// ParsePublicJWK decodes a public JWK (EC P-256 or OKP Ed25519). It refuses
// a JWK with any private or symmetric member, duplicate members, or an
// "alg" that does not match the key type. Errors never quote the input.
func ParsePublicJWK(data []byte) (*jose.JSONWebKey, error) {
	var members map[string]josejson.RawMessage
	if err := josejson.Unmarshal(data, &members); err != nil || members == nil {
		return nil, errPublicJWK
	}
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return nil, errPublicJWK
		}
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(data); err != nil || !jwk.Valid() || !jwk.IsPublic() {
		return nil, errPublicJWK
	}
	alg := algOf(jwk.Key)
	if alg == "" || !algMatches(jwk.Algorithm, alg) {
		return nil, errPublicJWK
	}
	return &jwk, nil
}
