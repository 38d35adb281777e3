package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
)

// HolderSigner signs raw messages with a holder key, in the signature form
// JWS uses for the key's algorithm: ES256 is ECDSA P-256 over SHA-256 with
// the 64-byte r‖s encoding of RFC 7518 §3.4; EdDSA is Ed25519 (RFC 8037
// §3.1). The ticket package uses it to sign a rebinding block for a bound
// ticket's current holder (it satisfies token.HolderSigner; this package
// does not import token).
//
// A HolderSigner never prints its private key: every fmt verb, String and
// GoString show only the key's thumbprint (see Format).
type HolderSigner struct {
	sec **privateKey // see privateKey
	jwk []byte
	jkt []byte
}

// privateKey holds the private key, two pointers deep (HolderSigner.sec).
// fmt calls HolderSigner's Format only where it can: the signer is the
// operand, or in an exported field. Where one sits in an unexported field,
// fmt prints its fields itself; a pointer below the top level prints as an
// address, and for a verb that does not suit a pointer (%s, %q) fmt
// reprints it with %v at the top level, which shows one level down: still
// a pointer, so still an address, never the key.
type privateKey struct{ key crypto.Signer }

// NewHolderSigner wraps an ES256 (*ecdsa.PrivateKey on P-256) or EdDSA
// (ed25519.PrivateKey) holder key.
func NewHolderSigner(key crypto.Signer) (*HolderSigner, error) {
	if key == nil {
		return nil, errUnsupported
	}
	jwk, err := MarshalPublicJWK(key.Public())
	if err != nil {
		return nil, err
	}
	jkt, err := ThumbprintOf(key.Public())
	if err != nil {
		return nil, err
	}
	raw, _ := base64.RawURLEncoding.DecodeString(jkt)
	pk := &privateKey{key}
	return &HolderSigner{sec: &pk, jwk: jwk, jkt: raw}, nil
}

// String describes the signer without its private key, e.g.
// "dpop.HolderSigner{jkt:K6J1kXKw…, REDACTED}" with the whole jkt.
func (h HolderSigner) String() string {
	return "dpop.HolderSigner{jkt:" + base64.RawURLEncoding.EncodeToString(h.jkt) + ", REDACTED}"
}

// GoString is String: %#v shows no key material either.
func (h HolderSigner) GoString() string { return h.String() }

// Format writes String for every verb, so that no verb prints the key.
func (h HolderSigner) Format(f fmt.State, verb rune) { io.WriteString(f, h.String()) }

// PublicJWK returns the holder's public JWK as JSON.
func (h *HolderSigner) PublicJWK() []byte { return append([]byte(nil), h.jwk...) }

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of the public JWK
// (32 bytes; its base64url form is the jkt).
func (h *HolderSigner) Thumbprint() []byte { return append([]byte(nil), h.jkt...) }

// Sign signs msg.
func (h *HolderSigner) Sign(msg []byte) ([]byte, error) {
	if h.sec == nil {
		return nil, errUnsupported
	}
	switch k := (*h.sec).key.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(k, msg), nil
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, errUnsupported
		}
		digest := sha256.Sum256(msg)
		r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			return nil, errors.New("dpop: ecdsa signing failed")
		}
		// Low S only, so that a ticket carrying the signature has one
		// encoding (ECDSA signatures are otherwise malleable).
		if n := k.Curve.Params().N; s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
			s.Sub(n, s)
		}
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return sig, nil
	}
	return nil, errUnsupported
}

// ErrHolderSignature is returned by VerifyHolderSignature for any failure.
var ErrHolderSignature = errors.New("dpop: holder signature does not verify")

// VerifyHolderSignature checks sig over msg under the public JWK jwkJSON
// (parsed as ParsePublicJWK does) and returns the JWK's RFC 7638 SHA-256
// thumbprint (32 bytes). ECDSA signatures must have a low S (S ≤ n/2), so
// that each signature has one form.
func VerifyHolderSignature(jwkJSON, msg, sig []byte) ([]byte, error) {
	jwk, err := ParsePublicJWK(jwkJSON)
	if err != nil {
		return nil, err
	}
	ok := false
	switch k := jwk.Key.(type) {
	case ed25519.PublicKey:
		ok = len(sig) == ed25519.SignatureSize && ed25519.Verify(k, msg, sig)
	case *ecdsa.PublicKey:
		if len(sig) == 64 && k.Curve == elliptic.P256() {
			digest := sha256.Sum256(msg)
			r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
			halfN := new(big.Int).Rsh(k.Curve.Params().N, 1)
			ok = s.Cmp(halfN) <= 0 && ecdsa.Verify(k, digest[:], r, s)
		}
	}
	if !ok {
		return nil, ErrHolderSignature
	}
	jkt, err := Thumbprint(jwk)
	if err != nil {
		return nil, err
	}
	return base64.RawURLEncoding.DecodeString(jkt)
}

// MakeProof makes a DPoP proof with the signer's key, as Make does.
func (s *HolderSigner) MakeProof(method, uri string, opts MakeOptions) (string, error) {
	return Make((*s.sec).key, method, uri, opts)
}
