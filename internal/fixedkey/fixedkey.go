// Package fixedkey makes the fixed keys of tests: a key's material is the
// start of internal/detrand's stream for a seed, so a test gets the same
// key on every call and every run. No randomness is involved: the keys are
// built from their material with package key's constructors, since no
// public API takes a randomness source. The material is what
// token.GenerateKey and chain.GenerateKey drew from such a stream before
// package key, so test keys did not change. Secret and Public hand tests
// and generators that compute signatures themselves a key's material, read
// from its text form.
package fixedkey

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/key"
)

// material returns the first n bytes of seed's stream.
func material(seed string, n int) []byte {
	b := make([]byte, n)
	detrand.New(seed).Read(b)
	return b
}

// Signing returns the root or receipt key of alg with id made from seed.
func Signing(alg key.Alg, id, seed string) (*key.Signing, error) {
	switch alg {
	case key.HMACSHA256:
		return key.NewHMAC(id, material(seed, key.HMACBytes))
	case key.Ed25519:
		return key.NewEd25519(id, ed25519.NewKeyFromSeed(material(seed, ed25519.SeedSize)))
	}
	return nil, errors.New("fixedkey: unknown algorithm")
}

// Holder returns a DPoP holder key of alg (Ed25519 or ES256) made from
// seed, as HolderKey derives it.
func Holder(alg key.Alg, seed string) (*key.Holder, error) {
	k, err := HolderKey(alg, seed)
	if err != nil {
		return nil, err
	}
	return parse(k)
}

// HolderKey returns the private key of Holder(alg, seed), for generators
// that sign as JWS does themselves: an Ed25519 seed, or the first 32-byte
// candidate of the stream that is a valid P-256 scalar (the derivation
// key.GenerateHolder applies to a fixed randomness source).
func HolderKey(alg key.Alg, seed string) (crypto.Signer, error) {
	r := detrand.New(seed)
	var b [32]byte
	switch alg {
	case key.Ed25519:
		r.Read(b[:])
		return ed25519.NewKeyFromSeed(b[:]), nil
	case key.ES256:
		for range 64 {
			r.Read(b[:])
			if k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), b[:]); err == nil {
				return k, nil
			}
		}
	}
	return nil, errors.New("fixedkey: unsupported holder algorithm")
}

// parse turns a private key into a Holder through its private JWK.
func parse(k any) (*key.Holder, error) {
	b, err := jose.JSONWebKey{Key: k}.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return key.ParseHolder(b)
}

// Secret returns a signing key's material, for tests and generators that
// compute signatures themselves: the HMAC secret, or the Ed25519 private
// key (64 bytes). It reads the key's text form, the one way key material
// leaves package key.
func Secret(k *key.Signing) []byte {
	raw := rawOf(k.SecretText())
	switch k.Alg() {
	case key.HMACSHA256:
		return raw[len(raw)-key.HMACBytes:]
	case key.Ed25519:
		return ed25519.NewKeyFromSeed(raw[1:])
	}
	return nil
}

// Public returns an Ed25519 verifying key's public key, read from its
// public key string.
func Public(k *key.Verifying) ed25519.PublicKey {
	if k.Alg() != key.Ed25519 {
		return nil
	}
	return rawOf(k.String())[1:]
}

// rawOf decodes the base64 part of a signed-note key string.
func rawOf(text string) []byte {
	text = strings.TrimPrefix(strings.TrimSpace(text), "PRIVATE+KEY+")
	parts := strings.SplitN(text, "+", 3) // name, key hash, base64 (which may hold '+')
	if len(parts) != 3 {
		return nil
	}
	b, _ := base64.StdEncoding.DecodeString(parts[2])
	return b
}
