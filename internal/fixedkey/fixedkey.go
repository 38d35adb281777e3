// Package fixedkey makes the fixed keys of tests: a key's material is the
// start of internal/detrand's stream for a seed, so a test gets the same
// key on every call and every run. No randomness is involved: the keys are
// built from their material with the packages' New* constructors, since no
// public API takes a randomness source (issue #17). The material is what
// the GenerateKey functions drew from such a stream before, so test keys
// did not change.
package fixedkey

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"errors"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/token"
)

// material returns the first n bytes of seed's stream.
func material(seed string, n int) []byte {
	b := make([]byte, n)
	detrand.New(seed).Read(b)
	return b
}

// Token returns the root key id of mode made from seed.
func Token(id string, mode token.Mode, seed string) (*token.SigningKey, error) {
	switch mode {
	case token.ModeHMAC:
		return token.NewHMACKey(id, material(seed, token.HMACKeyBytes))
	case token.ModeEd25519:
		return token.NewEd25519Key(id, ed25519.NewKeyFromSeed(material(seed, ed25519.SeedSize)))
	}
	return nil, errors.New("fixedkey: unknown token mode")
}

// Chain returns the receipt key alg named name made from seed.
func Chain(alg chain.Alg, name, seed string) (*chain.Key, error) {
	switch alg {
	case chain.AlgEd25519:
		return chain.NewEd25519Key(name, ed25519.NewKeyFromSeed(material(seed, ed25519.SeedSize)))
	case chain.AlgHMACSHA256:
		return chain.NewHMACKey(name, material(seed, chain.HMACKeySize))
	}
	return nil, errors.New("fixedkey: unknown chain algorithm")
}

// Holder returns a DPoP holder key for alg "EdDSA" or "ES256" made from
// seed: an Ed25519 seed, or the first 32-byte candidate of the stream that
// is a valid P-256 scalar.
func Holder(alg, seed string) (crypto.Signer, error) {
	r := detrand.New(seed)
	var b [32]byte
	switch alg {
	case "EdDSA":
		r.Read(b[:])
		return ed25519.NewKeyFromSeed(b[:]), nil
	case "ES256":
		for range 64 {
			r.Read(b[:])
			if k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), b[:]); err == nil {
				return k, nil
			}
		}
	}
	return nil, errors.New("fixedkey: unsupported holder algorithm")
}
