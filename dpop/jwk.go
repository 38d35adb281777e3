package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/key"
)

// thumbprint returns the RFC 7638 SHA-256 thumbprint of a proof's public
// JWK, base64url without padding (the "jkt" of RFC 9449 §6.1), the form
// key.HolderPublic.Thumbprint returns. For the two key types a proof can
// carry (checkHeader allows no other), it hashes the required members in
// lexicographic order (RFC 7638 §3.2: crv, kty, x, y for EC; crv, kty, x
// for OKP) from one stack buffer: go-jose's Thumbprint re-encodes the
// coordinates through math/big and its JSON encoder (19 allocations, a
// few µs of a proof check; issue #18 counts every one). go-jose stays the
// reference: TestThumbprintIsGoJose and FuzzThumbprint hold the two to
// one answer, and any other key falls back to it.
func thumbprint(jwk *jose.JSONWebKey) (string, error) {
	var buf [128]byte
	var b []byte
	switch k := jwk.Key.(type) {
	case *ecdsa.PublicKey:
		raw, err := k.Bytes()
		if err != nil || k.Curve != elliptic.P256() || len(raw) != 65 {
			return joseThumbprint(jwk)
		}
		b = append(buf[:0], `{"crv":"P-256","kty":"EC","x":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, raw[1:33])
		b = append(b, `","y":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, raw[33:])
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return joseThumbprint(jwk)
		}
		b = append(buf[:0], `{"crv":"Ed25519","kty":"OKP","x":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, k)
	default:
		return joseThumbprint(jwk)
	}
	b = append(b, `"}`...)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// joseThumbprint is go-jose's RFC 7638 thumbprint, base64url.
func joseThumbprint(jwk *jose.JSONWebKey) (string, error) {
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", errors.New("dpop: cannot compute thumbprint")
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}

// holderSigner is a key.Holder as go-jose's OpaqueSigner: Make's JWS is
// signed by Holder.Sign, which returns the JWS signature form, so the
// private key never leaves package key.
type holderSigner struct {
	h   *key.Holder
	jwk *jose.JSONWebKey
	alg jose.SignatureAlgorithm
}

func newHolderSigner(h *key.Holder) (*holderSigner, error) {
	var alg jose.SignatureAlgorithm
	switch h.Alg() {
	case key.ES256:
		alg = jose.ES256
	case key.Ed25519:
		alg = jose.EdDSA
	default:
		return nil, errNoHolder
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(h.Public().JWK()); err != nil {
		return nil, errNoHolder
	}
	jwk.Algorithm = "" // the header's alg says it; the jwk is kty, crv and the point only
	return &holderSigner{h: h, jwk: &jwk, alg: alg}, nil
}

var errNoHolder = errors.New("dpop: no holder key (es256 or ed25519)")

func (s *holderSigner) Public() *jose.JSONWebKey        { return s.jwk }
func (s *holderSigner) Algs() []jose.SignatureAlgorithm { return []jose.SignatureAlgorithm{s.alg} }

func (s *holderSigner) SignPayload(payload []byte, alg jose.SignatureAlgorithm) ([]byte, error) {
	if alg != s.alg {
		return nil, errors.New("dpop: algorithm does not match the holder key")
	}
	return s.h.Sign(payload)
}
