package token

import (
	"crypto/ed25519"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"

	"github.com/tickettool/tickettool/internal/randsrc"
)

// Mode is a ticket's chaining mode. The verifier's key decides the mode,
// never the ticket: a ticket whose block 0 names another mode than its
// key's is refused.
type Mode uint8

const (
	ModeHMAC    Mode = 1 // HMAC-SHA256 chain; the verifier holds the root secret
	ModeEd25519 Mode = 2 // Ed25519 chain; the verifier holds the root public key
)

// String returns "hmac", "ed25519", or "mode(N)".
func (m Mode) String() string {
	switch m {
	case ModeHMAC:
		return "hmac"
	case ModeEd25519:
		return "ed25519"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode is the inverse of Mode.String for the two known modes.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "hmac":
		return ModeHMAC, nil
	case "ed25519":
		return ModeEd25519, nil
	}
	return 0, fmt.Errorf("token: unknown mode %q", s)
}

// SigningKey is a root key that mints tickets: an HMAC secret or an Ed25519
// private key, with the key id that tickets name. It never prints its key
// material: every fmt verb, String and GoString show only its mode and id
// (see Format).
type SigningKey struct {
	id   string
	mode Mode
	sec  **keyMaterial // see keyMaterial
}

// VerifyingKey checks tickets minted under one key id: the HMAC secret
// itself, or the Ed25519 public key. The type fixes the algorithm; there is
// no way to use an Ed25519 public key as an HMAC secret. Like SigningKey
// it never prints its key material; an Ed25519 verifying key is public
// and prints its public key.
type VerifyingKey struct {
	id   string
	mode Mode
	sec  **keyMaterial // HMAC only; see keyMaterial
	ed   ed25519.PublicKey
}

// keyMaterial holds a key's secret, two pointers deep (the keys' sec).
// fmt calls a key's Format only where it can: the key is the operand, or
// in an exported field. Where a key sits in an unexported field, fmt
// prints its fields itself; a pointer below the top level prints as an
// address, and for a verb that does not suit a pointer (%s, %q) fmt
// reprints it with %v at the top level, which shows one level down: still
// a pointer, so still an address, never the bytes.
type keyMaterial struct {
	hmac []byte
	ed   ed25519.PrivateKey
}

// seal returns m two pointers deep.
func seal(m keyMaterial) **keyMaterial {
	p := &m
	return &p
}

// hmacKey returns the HMAC secret in sec, or nil.
func hmacKey(sec **keyMaterial) []byte {
	if sec == nil {
		return nil
	}
	return (*sec).hmac
}

// edKey returns the Ed25519 private key in sec, or nil.
func edKey(sec **keyMaterial) ed25519.PrivateKey {
	if sec == nil {
		return nil
	}
	return (*sec).ed
}

func checkKeyID(id string) error {
	if id == "" || len(id) > MaxKeyIDBytes {
		return fmt.Errorf("token: key id must be 1 to %d bytes", MaxKeyIDBytes)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("token: key id must be printable ASCII without spaces")
		}
	}
	return nil
}

// NewHMACKey returns the signing key for a 32-byte HMAC root secret. The
// same secret verifies (see SigningKey.Verifying).
func NewHMACKey(id string, secret []byte) (*SigningKey, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	if len(secret) != HMACKeyBytes {
		return nil, fmt.Errorf("token: hmac root key must be %d bytes, not %d", HMACKeyBytes, len(secret))
	}
	return &SigningKey{id: id, mode: ModeHMAC, sec: seal(keyMaterial{hmac: append([]byte(nil), secret...)})}, nil
}

// NewEd25519Key returns the signing key for an Ed25519 private key.
func NewEd25519Key(id string, priv ed25519.PrivateKey) (*SigningKey, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("token: ed25519 private key must be %d bytes", ed25519.PrivateKeySize)
	}
	return &SigningKey{id: id, mode: ModeEd25519, sec: seal(keyMaterial{ed: append(ed25519.PrivateKey(nil), priv...)})}, nil
}

// NewEd25519PublicKey returns the verifying key for an Ed25519 public key.
func NewEd25519PublicKey(id string, pub ed25519.PublicKey) (*VerifyingKey, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("token: ed25519 public key must be %d bytes", ed25519.PublicKeySize)
	}
	if smallOrder(pub) {
		return nil, errors.New("token: ed25519 public key is a point of small order: anyone could sign for it")
	}
	return &VerifyingKey{id: id, mode: ModeEd25519, ed: append(ed25519.PublicKey(nil), pub...)}, nil
}

// GenerateKey makes a fresh root key of the given mode from crypto/rand.
func GenerateKey(id string, mode Mode) (*SigningKey, error) {
	rand := randsrc.Reader()
	switch mode {
	case ModeHMAC:
		secret := make([]byte, HMACKeyBytes)
		if _, err := io.ReadFull(rand, secret); err != nil {
			return nil, fmt.Errorf("token: reading randomness: %w", err)
		}
		return NewHMACKey(id, secret)
	case ModeEd25519:
		_, priv, err := ed25519.GenerateKey(rand)
		if err != nil {
			return nil, fmt.Errorf("token: generating ed25519 key: %w", err)
		}
		return NewEd25519Key(id, priv)
	}
	return nil, fmt.Errorf("token: unknown mode %d", mode)
}

// ID returns the key id.
func (k *SigningKey) ID() string { return k.id }

// Mode returns the key's chaining mode.
func (k *SigningKey) Mode() Mode { return k.mode }

// Verifying returns the key that verifies tickets this key mints: the same
// secret for HMAC, the public key for Ed25519.
func (k *SigningKey) Verifying() *VerifyingKey {
	v := &VerifyingKey{id: k.id, mode: k.mode}
	if k.mode == ModeHMAC {
		v.sec = seal(keyMaterial{hmac: hmacKey(k.sec)})
	} else {
		v.ed = edKey(k.sec).Public().(ed25519.PublicKey)
	}
	return v
}

// HMACSecret returns a copy of the HMAC root secret, for writing key files;
// it is nil for an Ed25519 key.
func (k *SigningKey) HMACSecret() []byte { return append([]byte(nil), hmacKey(k.sec)...) }

// Ed25519Private returns the Ed25519 private key, for writing key files; it
// is nil for an HMAC key.
func (k *SigningKey) Ed25519Private() ed25519.PrivateKey {
	return append(ed25519.PrivateKey(nil), edKey(k.sec)...)
}

// ID returns the key id.
func (k *VerifyingKey) ID() string { return k.id }

// Mode returns the key's chaining mode.
func (k *VerifyingKey) Mode() Mode { return k.mode }

// Ed25519Public returns the public key of an Ed25519 verifying key, or nil.
func (k *VerifyingKey) Ed25519Public() ed25519.PublicKey { return k.ed }

// Equal reports whether k and o are the same key (constant time in the key).
func (k *VerifyingKey) Equal(o *VerifyingKey) bool {
	if k.id != o.id || k.mode != o.mode {
		return false
	}
	if k.mode == ModeHMAC {
		return subtle.ConstantTimeCompare(hmacKey(k.sec), hmacKey(o.sec)) == 1
	}
	return k.ed.Equal(o.ed)
}

// Keyring maps key ids to verifying keys. It is immutable once built and
// safe for concurrent use.
type Keyring struct {
	keys map[string]*VerifyingKey
}

// NewKeyring builds a keyring; two keys with one id are an error.
func NewKeyring(keys ...*VerifyingKey) (*Keyring, error) {
	r := &Keyring{keys: make(map[string]*VerifyingKey, len(keys))}
	for _, k := range keys {
		if k == nil {
			return nil, fmt.Errorf("token: nil key in keyring")
		}
		if _, dup := r.keys[k.id]; dup {
			return nil, fmt.Errorf("token: key id %q appears twice in keyring", k.id)
		}
		r.keys[k.id] = k
	}
	return r, nil
}

// Lookup returns the key with the given id.
func (r *Keyring) Lookup(id string) (*VerifyingKey, bool) {
	if r == nil {
		return nil, false
	}
	k, ok := r.keys[id]
	return k, ok
}
