package key

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/big"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/jwk"
	"github.com/tickettool/tickettool/internal/strictjson"
)

// HolderPublic is a holder's public key: an EC P-256 or OKP Ed25519 public
// JWK. It is immutable.
type HolderPublic struct {
	alg Alg
	jwk []byte // canonical JSON, with "alg"
	jkt string
	ec  *ecdsa.PublicKey
	ed  ed25519.PublicKey
}

var errPublicJWK = fmt.Errorf("%w: not a public holder jwk (EC P-256 or OKP Ed25519)", ErrMalformed)

// ParseHolderPublic decodes a public JWK (EC P-256 or OKP Ed25519) as
// spec/FORMAT.md §4.4 defines it, by the parser package dpop uses for a
// proof's jwk (internal/jwk): a JSON object held to the lexical rules of
// §4.5 step 2 (valid UTF-8, no lone surrogate escapes, nesting at most 32,
// no two members of one object named alike at any depth), without any
// private or symmetric member, with an "alg", if present, that matches
// the key type ("ES256"; "EdDSA" or, as RFC 9864 §2.2 names it,
// "Ed25519"); other members are ignored. The key's own JWK ([HolderPublic.JWK])
// says "EdDSA" whichever it was given. Errors never quote the input.
func ParseHolderPublic(jwkJSON []byte) (*HolderPublic, error) {
	if len(jwkJSON) > MaxFileBytes || !strictjson.Object(jwkJSON) {
		return nil, errPublicJWK
	}
	k, err := jwk.Parse(jwkJSON)
	if err != nil {
		return nil, errPublicJWK
	}
	if k.EC != nil {
		return newHolderPublic(k.EC)
	}
	return newHolderPublic(k.Ed)
}

// newHolderPublic wraps a P-256 *ecdsa.PublicKey or an ed25519.PublicKey.
func newHolderPublic(pub any) (*HolderPublic, error) {
	hp := &HolderPublic{}
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k == nil || k.Curve != elliptic.P256() {
			return nil, errPublicJWK
		}
		hp.alg, hp.ec = ES256, k
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return nil, errPublicJWK
		}
		hp.alg, hp.ed = Ed25519, append(ed25519.PublicKey(nil), k...)
		pub = hp.ed
	default:
		return nil, errPublicJWK
	}
	jwk := jose.JSONWebKey{Key: pub, Algorithm: jwsName(hp.alg)}
	b, err := jwk.MarshalJSON()
	if err != nil {
		return nil, errPublicJWK
	}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, errPublicJWK
	}
	hp.jwk, hp.jkt = b, base64.RawURLEncoding.EncodeToString(sum)
	return hp, nil
}

// Alg returns [ES256] or Ed25519 (0 for a nil or zero key).
func (p *HolderPublic) Alg() Alg {
	if p == nil {
		return 0
	}
	return p.alg
}

// JWK returns the public JWK as JSON, with its "alg" (a copy).
func (p *HolderPublic) JWK() []byte {
	if p == nil {
		return nil
	}
	return append([]byte(nil), p.jwk...)
}

// Thumbprint returns the RFC 7638 SHA-256 thumbprint of the public JWK in
// base64url without padding: the "jkt" of RFC 9449 §6.1, which a holder
// caveat names. It is "" for a nil or zero key.
func (p *HolderPublic) Thumbprint() string {
	if p == nil {
		return ""
	}
	return p.jkt
}

// Verify reports whether sig is a signature of msg as [Holder.Sign] makes
// it. An [ES256] signature must have a low S (S ≤ n/2), so that each
// signature has one form.
func (p *HolderPublic) Verify(msg, sig []byte) bool {
	switch p.Alg() {
	case Ed25519:
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(p.ed, msg, sig)
	case ES256:
		if len(sig) != 64 {
			return false
		}
		digest := sha256.Sum256(msg)
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		halfN := new(big.Int).Rsh(p.ec.Curve.Params().N, 1)
		return s.Cmp(halfN) <= 0 && ecdsa.Verify(p.ec, digest[:], r, s)
	}
	return false
}
