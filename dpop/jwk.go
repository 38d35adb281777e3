package dpop

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/smallorder"
	"github.com/tickettool/tickettool/key"
)

// publicKey is the key of a proof's jwk: its algorithm, its coordinates
// as decoded (y for ES256 only), and the key as [Proof.Key] holds it.
type publicKey struct {
	alg  jose.SignatureAlgorithm
	x, y [32]byte
	ec   *ecdsa.PublicKey
	ed   ed25519.PublicKey
}

// Members of a jwk that parseJWK reads, as indexes of their values.
const (
	jwkKty = iota
	jwkCrv
	jwkX
	jwkY
	jwkAlg
	jwkMembers
)

// parseJWK builds the public key of a proof's jwk, the text v of a JSON
// value already held to the lexical rules of step 2 (spec/FORMAT.md §4.5
// step 5, with the JWK rules of §4.4): an object without private or
// symmetric members (d, p, q, dp, dq, qi, oth, k, priv, whatever their
// values), of the type alg needs — "kty":"EC", "crv":"P-256", x and y of
// 32 bytes each and a point on the curve for ES256; "kty":"OKP",
// "crv":"Ed25519", x of 32 bytes and not of small order for EdDSA — with an
// "alg" member, if present, equal to alg. Other members are ignored,
// whatever their values. A nil v is a missing jwk.
func parseJWK(v []byte, alg jose.SignatureAlgorithm) (*publicKey, *Error) {
	if v == nil {
		return nil, refuse(CheckJWK, "missing")
	}
	var vals [jwkMembers][]byte // nil: absent
	private := false
	ok := eachMember(v, func(name, v []byte) bool {
		if privateMember(name) {
			private = true
			return false
		}
		i := -1
		switch string(name) {
		case "kty":
			i = jwkKty
		case "crv":
			i = jwkCrv
		case "x":
			i = jwkX
		case "y":
			i = jwkY
		case "alg":
			i = jwkAlg
		}
		if i >= 0 {
			vals[i] = v
		}
		return true
	})
	if private {
		return nil, refuse(CheckJWK, "contains private or symmetric key material")
	}
	if !ok {
		return nil, refuse(CheckJWK, "not a json object")
	}
	return buildKey(&vals, alg)
}

// buildKey checks the members parseJWK collected and builds the key.
// privateMember reports whether a jwk member holds private or symmetric
// key material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
func privateMember(name []byte) bool {
	switch string(name) {
	case "d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv":
		return true
	}
	return false
}

func buildKey(vals *[jwkMembers][]byte, alg jose.SignatureAlgorithm) (*publicKey, *Error) {
	kty, _ := stringValue(vals[jwkKty])
	crv, _ := stringValue(vals[jwkCrv])
	k := &publicKey{alg: alg}
	switch {
	case alg == jose.ES256 && string(kty) == "EC" && string(crv) == "P-256":
		if !decodeCoordinate(vals[jwkX], &k.x) || !decodeCoordinate(vals[jwkY], &k.y) {
			return nil, refuse(CheckJWK, "invalid key")
		}
		var point [65]byte
		point[0] = 4
		copy(point[1:], k.x[:])
		copy(point[33:], k.y[:])
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point[:])
		if err != nil {
			return nil, refuse(CheckJWK, "invalid key")
		}
		k.ec = pub
	case alg == jose.EdDSA && string(kty) == "OKP" && string(crv) == "Ed25519":
		if !decodeCoordinate(vals[jwkX], &k.x) || smallorder.Is(k.x[:]) {
			return nil, refuse(CheckJWK, "invalid key")
		}
		k.ed = ed25519.PublicKey(k.x[:])
	default:
		return nil, refuse(CheckJWK, "key type does not match alg")
	}
	if vals[jwkAlg] != nil {
		if a, ok := stringValue(vals[jwkAlg]); !ok || string(a) != string(alg) {
			return nil, refuse(CheckJWK, "key alg member does not match header alg")
		}
	}
	return k, nil
}

// decodeCoordinate decodes v, the text of a JSON string holding 32 bytes
// in base64url without padding, into dst (spec/FORMAT.md §4.4): padding
// or any character outside the alphabet refuses it, unused trailing bits
// are ignored.
func decodeCoordinate(v []byte, dst *[32]byte) bool {
	s, ok := stringValue(v)
	if !ok || len(s) != 43 { // the length of 32 bytes' encoding
		return false
	}
	// Decode refuses '=' and other characters outside the alphabet except
	// CR and LF, which it skips: with one of them, 43 characters would
	// decode to fewer than 32 bytes.
	n, err := base64.RawURLEncoding.Decode(dst[:], s)
	return err == nil && n == 32
}

// jose returns the key as [Proof.Key] holds it.
func (k *publicKey) jose() *jose.JSONWebKey {
	if k.ec != nil {
		return &jose.JSONWebKey{Key: k.ec, Algorithm: string(k.alg)}
	}
	return &jose.JSONWebKey{Key: k.ed, Algorithm: string(k.alg)}
}

// thumbprint returns the RFC 7638 SHA-256 thumbprint of a proof's key,
// base64url without padding (the "jkt" of RFC 9449 §6.1), the form
// key.HolderPublic.Thumbprint returns. It hashes the required members in
// lexicographic order (RFC 7638 §3.2: crv, kty, x, y for EC; crv, kty, x
// for OKP), the coordinates re-encoded canonically from their bytes
// (spec/FORMAT.md §4.4), from one stack buffer. go-jose's Thumbprint is
// the reference: TestThumbprintIsGoJose and FuzzThumbprint hold the two
// to one answer.
func (k *publicKey) thumbprint() string {
	var buf [160]byte
	var b []byte
	if k.ec != nil {
		b = append(buf[:0], `{"crv":"P-256","kty":"EC","x":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, k.x[:])
		b = append(b, `","y":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, k.y[:])
	} else {
		b = append(buf[:0], `{"crv":"Ed25519","kty":"OKP","x":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, k.x[:])
	}
	b = append(b, `"}`...)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
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
