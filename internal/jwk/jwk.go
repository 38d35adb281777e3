// Package jwk parses the public JWKs of holder keys as spec/FORMAT.md
// §4.4 defines them, for both places a ticket meets one: the rebinding
// JWK of block field 6 (package key) and the "jwk" of a DPoP proof's
// protected header (package dpop, §4.5 step 5). One implementation, so
// that both accept the same keys.
//
// A JWK is a JSON object without any of the members d, p, q, dp, dq, qi,
// oth, k, priv (whatever their values, null included), and is either
// "kty":"EC", "crv":"P-256" with x and y of 32 bytes each and a point on
// the curve, or "kty":"OKP", "crv":"Ed25519" with x of 32 bytes that is
// not one of the 14 small-order encodings (§4.2); its "alg", if present,
// is "ES256" for the EC key, and "EdDSA" (RFC 8037) or "Ed25519" (RFC 9864
// §2.2, the fully-specified name that deprecates "EdDSA") for the OKP key.
// x and y are base64url without padding: '=' or any character outside
// the alphabet refuses the key, unused trailing bits are ignored. Other members are ignored, whatever
// their values. go-jose refuses some of those (a "kid" that is not a
// string, an "x5c" that is not a certificate chain, …) and accepts some
// of what the spec refuses; dpop's tests enumerate both
// (TestGoJoseDiffers) and hold this parser to go-jose elsewhere.
package jwk

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"errors"

	"github.com/tickettool/tickettool/internal/smallorder"
	"github.com/tickettool/tickettool/internal/strictjson"
)

// The JWS algorithms of the two key types: ES256 for EC P-256; EdDSA
// (RFC 8037) and Ed25519 (RFC 9864 §2.2) alike for OKP Ed25519.
const (
	ES256   = "ES256"
	EdDSA   = "EdDSA"
	Ed25519 = "Ed25519"
)

// Key is a parsed public JWK.
type Key struct {
	Alg string // the key type's algorithm: ES256 or EdDSA
	// Member is the JWK's "alg" member, "" when absent: Alg, or
	// Ed25519 for an OKP key.
	Member string
	X, Y   [32]byte // the coordinates as decoded; Y for ES256 only
	EC     *ecdsa.PublicKey
	Ed     ed25519.PublicKey
}

// The reasons a JWK is refused.
var (
	ErrNotObject = errors.New("not a json object")
	ErrPrivate   = errors.New("contains private or symmetric key material")
	ErrKey       = errors.New("not an ec p-256 or okp ed25519 public key")
	ErrAlg       = errors.New("alg member does not match the key type")
)

// Members that Parse reads, as indexes of their values.
const (
	mKty = iota
	mCrv
	mX
	mY
	mAlg
	members
)

// Parse parses the JSON value v as a public JWK (see the package
// documentation). v must lie within a text already held to the lexical
// rules of spec/FORMAT.md §4.5 step 2 ([strictjson.Object]).
func Parse(v []byte) (*Key, error) {
	var vals [members][]byte // nil: absent
	private := false
	ok := strictjson.EachMember(v, func(name, v []byte) bool {
		if private = Private(name); private {
			return false
		}
		i := -1
		switch string(name) {
		case "kty":
			i = mKty
		case "crv":
			i = mCrv
		case "x":
			i = mX
		case "y":
			i = mY
		case "alg":
			i = mAlg
		}
		if i >= 0 {
			vals[i] = v
		}
		return true
	})
	switch {
	case private:
		return nil, ErrPrivate
	case !ok:
		return nil, ErrNotObject
	}
	return build(&vals)
}

// Private reports whether a jwk member holds private or symmetric key
// material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
func Private(name []byte) bool {
	switch string(name) {
	case "d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv":
		return true
	}
	return false
}

func build(vals *[members][]byte) (*Key, error) {
	kty, _ := strictjson.StringValue(vals[mKty])
	crv, _ := strictjson.StringValue(vals[mCrv])
	k := &Key{}
	switch {
	case string(kty) == "EC" && string(crv) == "P-256":
		if !decodeCoordinate(vals[mX], &k.X) || !decodeCoordinate(vals[mY], &k.Y) {
			return nil, ErrKey
		}
		var point [65]byte
		point[0] = 4
		copy(point[1:], k.X[:])
		copy(point[33:], k.Y[:])
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point[:])
		if err != nil {
			return nil, ErrKey
		}
		k.Alg, k.EC = ES256, pub
	case string(kty) == "OKP" && string(crv) == "Ed25519":
		if !decodeCoordinate(vals[mX], &k.X) || smallorder.Is(k.X[:]) {
			return nil, ErrKey
		}
		k.Alg, k.Ed = EdDSA, ed25519.PublicKey(k.X[:])
	default:
		return nil, ErrKey
	}
	if vals[mAlg] != nil {
		a, ok := strictjson.StringValue(vals[mAlg])
		if !ok || !k.OfType(string(a)) {
			return nil, ErrAlg
		}
		k.Member = string(a)
	}
	return k, nil
}

// OfType reports whether alg is a JWS algorithm of k's type, whatever
// its "alg" member.
func (k *Key) OfType(alg string) bool {
	return alg == k.Alg || (k.Ed != nil && alg == Ed25519)
}

// Signs reports whether k may check a JWS whose header names alg: alg is
// an algorithm of k's type and, when k has an "alg" member, that member
// (RFC 7517 §4.4: the algorithm the key is meant for). So an Ed25519 JWS
// needs an OKP key without "alg" or with "alg":"Ed25519", never one whose
// "alg" is "EdDSA", nor an EC key.
func (k *Key) Signs(alg string) bool {
	return k.OfType(alg) && (k.Member == "" || k.Member == alg)
}

// decodeCoordinate decodes v, the text of a JSON string holding 32 bytes
// in base64url without padding, into dst: padding or any character
// outside the alphabet refuses it, unused trailing bits are ignored.
func decodeCoordinate(v []byte, dst *[32]byte) bool {
	s, ok := strictjson.StringValue(v)
	if !ok || len(s) != 43 { // the length of 32 bytes' encoding
		return false
	}
	// Decode refuses '=' and other characters outside the alphabet except
	// CR and LF, which it skips: with one of them, 43 characters would
	// decode to fewer than 32 bytes.
	n, err := base64.RawURLEncoding.Decode(dst[:], s)
	return err == nil && n == 32
}

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of k, base64url
// without padding (the "jkt" of RFC 9449 §6.1). It hashes the required
// members in lexicographic order (RFC 7638 §3.2: crv, kty, x, y for EC;
// crv, kty, x for OKP), the coordinates re-encoded canonically from their
// bytes (spec/FORMAT.md §4.4), from one stack buffer. go-jose's
// Thumbprint is the reference (dpop's TestThumbprintIsGoJose and
// FuzzThumbprint).
func (k *Key) Thumbprint() string {
	var buf [160]byte
	var b []byte
	if k.EC != nil {
		b = append(buf[:0], `{"crv":"P-256","kty":"EC","x":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, k.X[:])
		b = append(b, `","y":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, k.Y[:])
	} else {
		b = append(buf[:0], `{"crv":"Ed25519","kty":"OKP","x":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, k.X[:])
	}
	b = append(b, `"}`...)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
