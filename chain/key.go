package chain

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/randsrc"
)

// Key signs or verifies records and checkpoints. It is one of:
//
//   - an Ed25519 private key (signs; verifies), from NewEd25519Key;
//   - an Ed25519 public key (verifies only), from NewEd25519PublicKey or
//     VerifierKey;
//   - an HMAC-SHA256 secret of 32 bytes (signs; verifies), from NewHMACKey.
//     Only a holder of the secret can verify an HMAC log or checkpoint.
//
// Every key has a name, the signed-note key name of its checkpoints
// (c2sp.org/signed-note: non-empty, no spaces, no '+'), and a 32-bit key
// hash that identifies it in signature lines. The key decides the
// algorithm: a record or checkpoint of another algorithm is refused.
//
// A Key never prints its key material: String, GoString and every
// formatting verb show only its algorithm, name and key hash.
type Key struct {
	alg  Alg
	name string
	hash uint32
	pub  ed25519.PublicKey
	sec  **keyMaterial // nil for a public key; see keyMaterial
}

// keyMaterial holds a key's secret, two pointers deep (Key.sec). fmt
// calls Key's Format only where it can: the key is the operand, or in an
// exported field. Where a Key sits in an unexported field, fmt prints its
// fields itself; a pointer below the top level prints as an address, and
// for a verb that does not suit a pointer (%s, %q) fmt reprints it with
// %v at the top level, which shows one level down: still a pointer, so
// still an address, never the bytes.
type keyMaterial struct {
	priv   ed25519.PrivateKey // Ed25519 signing keys
	secret []byte             // HMAC keys
}

// privKey returns the Ed25519 private key, or nil.
func (k *Key) privKey() ed25519.PrivateKey {
	if k.sec == nil {
		return nil
	}
	return (*k.sec).priv
}

// secretKey returns the HMAC secret, or nil.
func (k *Key) secretKey() []byte {
	if k.sec == nil {
		return nil
	}
	return (*k.sec).secret
}

// hmacType is the signed-note signature type of HMAC keys: 0xff (reserved
// for types without an assigned byte) followed by a long identifier.
const hmacType = "\xfftickettool/v1 hmac-sha256"

// HMACKeySize is the size of an HMAC secret.
const HMACKeySize = 32

func validName(name string) bool {
	return name != "" && len(name) <= MaxKeyNameBytes && utf8.ValidString(name) &&
		strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) < 0 &&
		!strings.Contains(name, "+")
}

func errName(name string) error {
	return fmt.Errorf("%w: invalid key name %s", ErrMalformedKey, quote(name))
}

// keyHash is the signed-note key ID: the first four bytes of
// SHA-256(name || 0x0a || type || public key).
func keyHash(name string, typeAndKey []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name + "\n"))
	h.Write(typeAndKey)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// NewEd25519Key returns a signing key for priv (64 bytes, as
// crypto/ed25519 holds it) named name. The key is copied.
func NewEd25519Key(name string, priv ed25519.PrivateKey) (*Key, error) {
	if !validName(name) {
		return nil, errName(name)
	}
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: ed25519 private key must be %d bytes", ErrMalformedKey, ed25519.PrivateKeySize)
	}
	p := ed25519.NewKeyFromSeed(priv.Seed())
	if !hmac.Equal(p, priv) {
		return nil, fmt.Errorf("%w: ed25519 private key does not match its public half", ErrMalformedKey)
	}
	k, _ := NewEd25519PublicKey(name, p.Public().(ed25519.PublicKey))
	m := &keyMaterial{priv: p}
	k.sec = &m
	return k, nil
}

// NewEd25519PublicKey returns a verifying key for pub named name.
func NewEd25519PublicKey(name string, pub ed25519.PublicKey) (*Key, error) {
	if !validName(name) {
		return nil, errName(name)
	}
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: ed25519 public key must be %d bytes", ErrMalformedKey, ed25519.PublicKeySize)
	}
	p := append(ed25519.PublicKey(nil), pub...)
	return &Key{alg: AlgEd25519, name: name, pub: p, hash: keyHash(name, append([]byte{1}, p...))}, nil
}

// NewHMACKey returns an HMAC-SHA256 key for a secret of HMACKeySize bytes
// named name. The secret is copied. Its key hash commits to the secret
// through SHA-256, so it reveals nothing usable.
func NewHMACKey(name string, secret []byte) (*Key, error) {
	if !validName(name) {
		return nil, errName(name)
	}
	if len(secret) != HMACKeySize {
		return nil, fmt.Errorf("%w: hmac secret must be %d bytes", ErrMalformedKey, HMACKeySize)
	}
	s := append([]byte(nil), secret...)
	id := sha256.Sum256(append([]byte("tickettool/v1 hmac key id\x00"), s...))
	m := &keyMaterial{secret: s}
	return &Key{alg: AlgHMACSHA256, name: name, sec: &m, hash: keyHash(name, append([]byte(hmacType), id[:]...))}, nil
}

// GenerateKey returns a new signing key of alg named name, drawing its
// secret from crypto/rand.
func GenerateKey(alg Alg, name string) (*Key, error) {
	rand := randsrc.Reader()
	switch alg {
	case AlgEd25519:
		_, priv, err := ed25519.GenerateKey(rand)
		if err != nil {
			return nil, fmt.Errorf("chain: generate key: %w", err)
		}
		return NewEd25519Key(name, priv)
	case AlgHMACSHA256:
		s := make([]byte, HMACKeySize)
		if _, err := io.ReadFull(rand, s); err != nil {
			return nil, fmt.Errorf("chain: generate key: %w", err)
		}
		return NewHMACKey(name, s)
	}
	return nil, fmt.Errorf("%w: unknown algorithm %d", ErrMalformedKey, alg)
}

// Alg returns the key's algorithm (0 for a nil key).
func (k *Key) Alg() Alg {
	if k == nil {
		return 0
	}
	return k.alg
}

// Name returns the key's name.
func (k *Key) Name() string {
	if k == nil {
		return ""
	}
	return k.name
}

// KeyHash returns the key's signed-note key hash.
func (k *Key) KeyHash() uint32 {
	if k == nil {
		return 0
	}
	return k.hash
}

// CanSign reports whether the key can sign (it is not a public key).
func (k *Key) CanSign() bool { return k != nil && (k.privKey() != nil || k.secretKey() != nil) }

// PublicKey returns the Ed25519 public key, or nil for an HMAC key.
func (k *Key) PublicKey() ed25519.PublicKey {
	if k == nil || k.alg != AlgEd25519 {
		return nil
	}
	return append(ed25519.PublicKey(nil), k.pub...)
}

// VerifierKey returns the key that verifies what k signs: the public half
// of an Ed25519 key, or k itself for an HMAC key (the same secret).
func (k *Key) VerifierKey() *Key {
	if k == nil || k.alg != AlgEd25519 || k.privKey() == nil {
		return k
	}
	v, _ := NewEd25519PublicKey(k.name, k.pub)
	return v
}

// sign signs a complete message (domain prefix included).
func (k *Key) sign(msg []byte) ([]byte, error) {
	switch {
	case k.alg == AlgEd25519 && k.privKey() != nil:
		return ed25519.Sign(k.privKey(), msg), nil
	case k.alg == AlgHMACSHA256:
		m := hmac.New(sha256.New, k.secretKey())
		m.Write(msg)
		return m.Sum(nil), nil
	}
	return nil, ErrPublicKey
}

// verify checks a signature of a complete message, in constant time for
// HMAC.
func (k *Key) verify(msg, sig []byte) bool {
	switch k.alg {
	case AlgEd25519:
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(k.pub, msg, sig)
	case AlgHMACSHA256:
		m := hmac.New(sha256.New, k.secretKey())
		m.Write(msg)
		return hmac.Equal(m.Sum(nil), sig)
	}
	return false
}

// String describes the key without its key material, e.g.
// "ed25519 private key example.com/log+1a2b3c4d".
func (k Key) String() string {
	what := "private key"
	switch {
	case k.alg == AlgHMACSHA256:
		what = "secret"
	case k.privKey() == nil:
		what = "public key"
	}
	return fmt.Sprintf("%s %s %s+%08x", k.alg, what, k.name, k.hash)
}

// GoString is String: a Key never prints its key material.
func (k Key) GoString() string { return "chain.Key(" + k.String() + ")" }

// Format writes String for every verb, so that no verb prints key material.
func (k Key) Format(f fmt.State, verb rune) { io.WriteString(f, k.String()) }

// checkKey refuses a nil key and, when sign is set, one that cannot sign.
func checkKey(k *Key, sign bool) error {
	if k == nil || k.alg.sigSize() == 0 {
		return fmt.Errorf("%w: no key", ErrMalformedKey)
	}
	if sign && !k.CanSign() {
		return ErrPublicKey
	}
	return nil
}
