package key

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/randsrc"
)

// Holder is the private key of a DPoP holder (RFC 9449): ECDSA P-256
// (ES256) or Ed25519. It is immutable and safe for concurrent use, and
// never prints its private key: every fmt verb, String and GoString show
// only its algorithm and thumbprint.
type Holder struct {
	alg Alg
	pub *HolderPublic
	sec **holderMaterial // see material
}

// holderMaterial holds a holder's private key two pointers deep, for the
// reason material gives.
type holderMaterial struct {
	ec *ecdsa.PrivateKey
	ed ed25519.PrivateKey
}

var (
	errPrivateJWK = fmt.Errorf("%w: not a private holder jwk (EC P-256 or OKP Ed25519)", ErrMalformed)
	errHolderAlg  = errors.New("key: a holder key is es256 or ed25519")
)

// GenerateHolder makes a new holder key of alg (ES256 or Ed25519) from
// crypto/rand.
func GenerateHolder(alg Alg) (*Holder, error) {
	if r := randsrc.Fixed(); r != nil {
		return holderFrom(alg, r)
	}
	switch alg {
	case ES256:
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("key: generating an es256 key: %w", err)
		}
		return newHolder(holderMaterial{ec: k})
	case Ed25519:
		return holderFrom(alg, rand.Reader)
	}
	return nil, errHolderAlg
}

// holderFrom derives a holder key from r deterministically: an Ed25519
// seed of 32 bytes; for P-256, 32-byte candidates until one lies in
// [1, n-1]. The spec vector generator's holder keys are defined this way.
func holderFrom(alg Alg, r io.Reader) (*Holder, error) {
	var buf [32]byte
	switch alg {
	case ES256:
		for range maxHolderAttempts {
			if _, err := io.ReadFull(r, buf[:]); err != nil {
				return nil, fmt.Errorf("key: reading randomness: %w", err)
			}
			if k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), buf[:]); err == nil {
				return newHolder(holderMaterial{ec: k})
			}
		}
		return nil, errors.New("key: randomness source is broken")
	case Ed25519:
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			return nil, fmt.Errorf("key: reading randomness: %w", err)
		}
		return newHolder(holderMaterial{ed: ed25519.NewKeyFromSeed(buf[:])})
	}
	return nil, errHolderAlg
}

func newHolder(m holderMaterial) (*Holder, error) {
	var pub any
	switch {
	case m.ec != nil:
		pub = &m.ec.PublicKey
	case len(m.ed) == ed25519.PrivateKeySize:
		pub = m.ed.Public()
	}
	hp, err := newHolderPublic(pub)
	if err != nil {
		return nil, err
	}
	p := &m
	return &Holder{alg: hp.alg, pub: hp, sec: &p}, nil
}

// ParseHolder decodes a private holder JWK as [Holder.WriteFile] writes
// it: an EC P-256 or OKP Ed25519 key whose public members match its
// private part and whose "alg", if present, matches its type ("ES256";
// "EdDSA" or "Ed25519", RFC 9864). Errors never quote the input.
func ParseHolder(jwkJSON []byte) (*Holder, error) {
	if len(jwkJSON) > MaxFileBytes {
		return nil, errPrivateJWK
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(jwkJSON); err != nil {
		return nil, errPrivateJWK
	}
	switch k := jwk.Key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() || !algMatches(jwk.Algorithm, ES256) {
			return nil, errPrivateJWK
		}
		// go-jose does not check that d belongs to (x, y); rebuild the key
		// from d and compare. Bytes checks 1 <= d < n and that (x, y) is
		// on the curve.
		d, err := k.Bytes()
		if err != nil {
			return nil, errPrivateJWK
		}
		priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
		if err != nil || !priv.PublicKey.Equal(&k.PublicKey) {
			return nil, errPrivateJWK
		}
		return newHolder(holderMaterial{ec: priv})
	case ed25519.PrivateKey: // go-jose checks that x matches d
		if !algMatches(jwk.Algorithm, Ed25519) {
			return nil, errPrivateJWK
		}
		return newHolder(holderMaterial{ed: k})
	}
	return nil, errPrivateJWK
}

// ReadHolderFile reads a private holder JWK file, refusing one that group
// or others may access ([ErrFileMode]).
func ReadHolderFile(path string) (*Holder, error) {
	b, err := readKeyFile(path, func([]byte) bool { return true })
	if err != nil {
		return nil, err
	}
	h, err := ParseHolder(b)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return h, nil
}

// WriteFile writes h's private JWK, with its "alg", and a newline to a new
// file at path, mode 0600, as [Signing.WriteFile] does.
func (h *Holder) WriteFile(path string) error {
	if h == nil || h.sec == nil {
		return errNoKey
	}
	var k any = (*h.sec).ed
	if (*h.sec).ec != nil {
		k = (*h.sec).ec
	}
	b, err := jose.JSONWebKey{Key: k, Algorithm: jwsName(h.alg)}.MarshalJSON()
	if err != nil {
		return errors.New("key: cannot encode the holder key")
	}
	return writeNew(path, append(b, '\n'), 0o600)
}

// Alg returns [ES256] or Ed25519 (0 for a nil or zero key).
func (h *Holder) Alg() Alg {
	if h == nil {
		return 0
	}
	return h.alg
}

// Public returns the holder's public key (nil for a nil or zero key).
func (h *Holder) Public() *HolderPublic {
	if h == nil {
		return nil
	}
	return h.pub
}

// Thumbprint returns the jkt of the holder's public JWK (see
// [HolderPublic.Thumbprint]).
func (h *Holder) Thumbprint() string { return h.Public().Thumbprint() }

// Sign signs msg in the JWS form of the key's algorithm: for [ES256], ECDSA
// P-256 over SHA-256 as the 64-byte r‖s of RFC 7518 §3.4 with a low S (so
// that a ticket carrying the signature has one encoding); for Ed25519 the
// signature of RFC 8037 §3.1.
func (h *Holder) Sign(msg []byte) ([]byte, error) {
	if h == nil || h.sec == nil {
		return nil, errNoKey
	}
	m := *h.sec
	if m.ec == nil {
		return ed25519.Sign(m.ed, msg), nil
	}
	digest := sha256.Sum256(msg)
	r, s, err := ecdsa.Sign(rand.Reader, m.ec, digest[:])
	if err != nil {
		return nil, errors.New("key: ecdsa signing failed")
	}
	if n := m.ec.Curve.Params().N; s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		s.Sub(n, s)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return sig, nil
}

// jwsName is the JWS "alg" of a holder algorithm (RFC 7518, RFC 8037).
func jwsName(a Alg) string {
	switch a {
	case ES256:
		return string(jose.ES256)
	case Ed25519:
		return string(jose.EdDSA)
	}
	return ""
}

// algMatches reports whether a JWK's "alg" member fits a key of want:
// absent, or its JWS name; for Ed25519 also "Ed25519", the
// fully-specified name of RFC 9864 §2.2.
func algMatches(jwkAlg string, want Alg) bool {
	return jwkAlg == "" || jwkAlg == jwsName(want) || want == Ed25519 && jwkAlg == "Ed25519"
}
