package dpop

import (
	"errors"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/jwk"
	"github.com/tickettool/tickettool/key"
)

// publicKey is the key of a proof's jwk, with the header's alg.
type publicKey struct {
	alg jose.SignatureAlgorithm
	*jwk.Key
}

// parseJWK builds the public key of a proof's jwk, the text v of a JSON
// value already held to the lexical rules of step 2 (spec/FORMAT.md §4.5
// step 5): a public JWK as §4.4 defines it (internal/jwk, the parser
// package key uses for rebinding JWKs too) of the type alg needs, EC P-256
// for ES256 and OKP Ed25519 for EdDSA and Ed25519, with an "alg" member,
// if any, equal to alg. A nil v is a missing jwk.
func parseJWK(v []byte, alg jose.SignatureAlgorithm) (*publicKey, *Error) {
	if v == nil {
		return nil, refuse(CheckJWK, "missing")
	}
	k, err := jwk.Parse(v)
	switch {
	case err == jwk.ErrNotObject:
		return nil, refuse(CheckJWK, "not a json object")
	case err == jwk.ErrPrivate:
		return nil, refuse(CheckJWK, "contains private or symmetric key material")
	case err == jwk.ErrAlg:
		return nil, refuse(CheckJWK, "key alg member does not match its type")
	case err != nil:
		return nil, refuse(CheckJWK, "invalid key")
	case !k.OfType(string(alg)):
		return nil, refuse(CheckJWK, "key type does not match alg")
	case !k.Signs(string(alg)):
		return nil, refuse(CheckJWK, "key alg member does not match alg")
	}
	return &publicKey{alg: alg, Key: k}, nil
}

// jose returns the key as [Proof.Key] holds it.
func (k *publicKey) jose() *jose.JSONWebKey {
	if k.EC != nil {
		return &jose.JSONWebKey{Key: k.EC, Algorithm: string(k.alg)}
	}
	return &jose.JSONWebKey{Key: k.Ed, Algorithm: string(k.alg)}
}

// holderSigner is a key.Holder as go-jose's OpaqueSigner: Make's JWS is
// signed by Holder.Sign, which returns the JWS signature form, so the
// private key never leaves package key.
type holderSigner struct {
	h   *key.Holder
	jwk *jose.JSONWebKey
	alg jose.SignatureAlgorithm
}

func newHolderSigner(h *key.Holder, name jose.SignatureAlgorithm) (*holderSigner, error) {
	var alg jose.SignatureAlgorithm
	switch {
	case h.Alg() == key.ES256 && (name == "" || name == jose.ES256):
		alg = jose.ES256
	case h.Alg() == key.Ed25519 && (name == "" || name == jose.EdDSA):
		alg = jose.EdDSA
	case h.Alg() == key.Ed25519 && name == Ed25519:
		alg = Ed25519
	case h.Alg() == 0:
		return nil, errNoHolder
	default:
		return nil, errors.New("dpop: algorithm " + quote(string(name)) + " does not match the holder key")
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
