package key

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/internal/smallorder"
)

// Signing is a root or receipt key that signs: an HMAC-SHA256 secret or an
// Ed25519 private key, with its id. It is immutable and safe for
// concurrent use. It never prints its key material (see [Signing.Format]).
type Signing struct {
	alg  Alg
	id   string
	hash uint32            // signed-note key hash
	pub  ed25519.PublicKey // Ed25519 only
	sec  **material        // see material
}

// Verifying is a root or receipt key that verifies: an HMAC-SHA256 secret
// (the same as its signing key's) or an Ed25519 public key, with its id.
// The type fixes the algorithm: an Ed25519 public key is never used as an
// HMAC secret. An HMAC Verifying key is a secret and never prints it; an
// Ed25519 one prints its public key string.
type Verifying struct {
	alg  Alg
	id   string
	hash uint32
	pub  ed25519.PublicKey // Ed25519 only
	sec  **material        // HMAC only; see material
}

// material holds a key's secret, two pointers deep (the keys' sec). fmt
// calls a key's Format only where it can: the key is the operand, or in an
// exported field. Where a key sits in an unexported field, fmt prints its
// fields itself; a pointer below the top level prints as an address, and
// for a verb that does not suit a pointer (%s, %q) fmt reprints it with %v
// at the top level, which shows one level down: still a pointer, so still
// an address, never the bytes.
type material struct {
	hmac []byte
	pads *hmacPads // of hmac
	ed   ed25519.PrivateKey
}

func seal(m material) **material {
	p := &m
	return &p
}

// hmacType is the signed-note signature type of HMAC keys: 0xff (reserved
// for types without an assigned byte) followed by a long identifier.
const hmacType = "\xfftickettool/v1 hmac-sha256"

// labelHMACKeyID is the domain of the value an HMAC key's key hash
// commits to: SHA-256 of it and the secret reveals nothing usable.
const labelHMACKeyID = "tickettool/v1 hmac key id\x00"

// checkID is the one key-id rule (see the package doc). The error says
// which byte is wrong and never quotes the id, which may be anything
// pasted, even a key.
func checkID(id string) error {
	if id == "" || len(id) > MaxIDBytes {
		return fmt.Errorf("%w: key id must be 1 to %d bytes", ErrMalformed, MaxIDBytes)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' || c == '+' {
			return fmt.Errorf("%w: key id must be printable ASCII without spaces or '+' (byte %d is not)", ErrMalformed, i)
		}
	}
	return nil
}

// noteKeyHash is the signed-note key hash: the first four bytes of
// SHA-256(id || 0x0a || type || key).
func noteKeyHash(id string, typ string, key []byte) uint32 {
	h := sha256.New()
	io.WriteString(h, id+"\n"+typ)
	h.Write(key)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// NewHMAC returns the signing key for an HMAC-SHA256 secret of [HMACBytes]
// bytes (the secret is copied).
func NewHMAC(id string, secret []byte) (*Signing, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if len(secret) != HMACBytes {
		return nil, fmt.Errorf("%w: hmac secret must be %d bytes", ErrMalformed, HMACBytes)
	}
	s := append([]byte(nil), secret...)
	kid := sha256.Sum256(append([]byte(labelHMACKeyID), s...))
	return &Signing{alg: HMACSHA256, id: id, hash: noteKeyHash(id, hmacType, kid[:]), sec: seal(material{hmac: s, pads: newPads(s)})}, nil
}

// NewEd25519 returns the signing key for an Ed25519 private key (64 bytes,
// as crypto/ed25519 holds it; copied). Its public half must match its seed.
func NewEd25519(id string, priv ed25519.PrivateKey) (*Signing, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: ed25519 private key must be %d bytes", ErrMalformed, ed25519.PrivateKeySize)
	}
	p := ed25519.NewKeyFromSeed(priv.Seed())
	if subtle.ConstantTimeCompare(p, priv) != 1 {
		return nil, fmt.Errorf("%w: ed25519 private key does not match its public half", ErrMalformed)
	}
	v, err := NewEd25519Public(id, p.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, err
	}
	return &Signing{alg: Ed25519, id: id, hash: v.hash, pub: v.pub, sec: seal(material{ed: p})}, nil
}

// NewEd25519Public returns the verifying key for an Ed25519 public key. It
// refuses a point of small order, under which anyone could sign.
func NewEd25519Public(id string, pub ed25519.PublicKey) (*Verifying, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: ed25519 public key must be %d bytes", ErrMalformed, ed25519.PublicKeySize)
	}
	if smallorder.Is(pub) {
		return nil, fmt.Errorf("%w: ed25519 public key is a point of small order: anyone could sign for it", ErrMalformed)
	}
	p := append(ed25519.PublicKey(nil), pub...)
	return &Verifying{alg: Ed25519, id: id, pub: p, hash: noteKeyHash(id, "\x01", p)}, nil
}

// Generate makes a new signing key of alg (HMACSHA256 or Ed25519) with the
// given id, from crypto/rand.
func Generate(alg Alg, id string) (*Signing, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	r := randsrc.Reader()
	switch alg {
	case HMACSHA256:
		s := make([]byte, HMACBytes)
		if _, err := io.ReadFull(r, s); err != nil {
			return nil, fmt.Errorf("key: reading randomness: %w", err)
		}
		return NewHMAC(id, s)
	case Ed25519:
		_, priv, err := ed25519.GenerateKey(r)
		if err != nil {
			return nil, fmt.Errorf("key: generating an ed25519 key: %w", err)
		}
		return NewEd25519(id, priv)
	}
	return nil, fmt.Errorf("key: cannot generate a root or receipt key of algorithm %v", alg)
}

var errNoKey = errors.New("key: no key")

// ID returns the key id ("" for a nil or zero key).
func (k *Signing) ID() string {
	if k == nil {
		return ""
	}
	return k.id
}

// Alg returns the key's algorithm (0 for a nil or zero key).
func (k *Signing) Alg() Alg {
	if k == nil {
		return 0
	}
	return k.alg
}

// Verifying returns the key that verifies what k signs: the same secret
// for HMAC, the public key for Ed25519. It is nil for a nil or zero key.
func (k *Signing) Verifying() *Verifying {
	switch k.Alg() {
	case HMACSHA256:
		return &Verifying{alg: k.alg, id: k.id, hash: k.hash, sec: k.sec}
	case Ed25519:
		return &Verifying{alg: k.alg, id: k.id, hash: k.hash, pub: k.pub}
	}
	return nil
}

// Sign returns the signature of msg: HMAC-SHA256(secret, msg) (32 bytes)
// or the Ed25519 signature (64 bytes). A zero key is an error.
func (k *Signing) Sign(msg []byte) ([]byte, error) {
	if k == nil || k.sec == nil {
		return nil, errNoKey
	}
	switch m := *k.sec; k.alg {
	case HMACSHA256:
		sum := m.pads.sum(m.hmac, msg)
		return sum[:], nil
	case Ed25519:
		return ed25519.Sign(m.ed, msg), nil
	}
	return nil, errNoKey
}

// ID returns the key id ("" for a nil or zero key).
func (k *Verifying) ID() string {
	if k == nil {
		return ""
	}
	return k.id
}

// Alg returns the key's algorithm (0 for a nil or zero key).
func (k *Verifying) Alg() Alg {
	if k == nil {
		return 0
	}
	return k.alg
}

// Verify reports whether sig is k's signature of msg (see [Signing.Sign]).
// An HMAC tag is compared in constant time.
func (k *Verifying) Verify(msg, sig []byte) bool {
	switch k.Alg() {
	case HMACSHA256:
		sum, ok := k.MAC(msg)
		return ok && hmac.Equal(sum[:], sig)
	case Ed25519:
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(k.pub, msg, sig)
	}
	return false
}

// MAC returns HMAC-SHA256(secret, msg) for an HMAC key, which is what its
// signing key's Sign returns, without allocating; ok is false for any other
// key. Package token derives a ticket's first chain key with it.
func (k *Verifying) MAC(msg []byte) (sum [32]byte, ok bool) {
	if k.Alg() != HMACSHA256 || k.sec == nil {
		return sum, false
	}
	m := *k.sec
	return m.pads.sum(m.hmac, msg), true
}

// Equal reports whether k and o are the same key: id, algorithm and key
// (an HMAC secret is compared in constant time).
func (k *Verifying) Equal(o *Verifying) bool {
	if k == nil || o == nil || k.id != o.id || k.alg != o.alg {
		return k == o
	}
	if k.alg == HMACSHA256 {
		return k.sec != nil && o.sec != nil && hmac.Equal((*k.sec).hmac, (*o.sec).hmac)
	}
	return k.pub.Equal(o.pub)
}
