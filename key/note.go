package key

import (
	"crypto/sha256"
	"errors"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// checkpointDomain is the domain of an HMAC checkpoint signature
// (chain/FORMAT.md §3).
const checkpointDomain = "tickettool/v1 checkpoint\x00"

// NoteSigner returns a signed-note signer for receipt-log checkpoints
// (c2sp.org/signed-note): note's own Ed25519 signer (note.NewSigner), or
// for an HMAC key a signer of type 0xff "tickettool/v1 hmac-sha256" whose
// signature is HMAC-SHA256(secret, "tickettool/v1 checkpoint" || 0x00 ||
// note text) (chain/FORMAT.md §3).
func (k *Signing) NoteSigner() (note.Signer, error) {
	switch k.Alg() {
	case HMACSHA256:
		return hmacNote{k.Verifying()}, nil
	case Ed25519:
		s, err := note.NewSigner(strings.TrimSuffix(k.SecretText(), "\n"))
		if err != nil {
			return nil, errors.New("key: note signer refused the key")
		}
		return s, nil
	}
	return nil, errNoKey
}

// NoteVerifier returns a signed-note verifier for checkpoints signed by
// k's signing key. An HMAC verifier needs the secret, which k is.
func (k *Verifying) NoteVerifier() (note.Verifier, error) {
	switch k.Alg() {
	case HMACSHA256:
		return hmacNote{k}, nil
	case Ed25519:
		v, err := note.NewVerifier(k.String())
		if err != nil {
			return nil, errors.New("key: note verifier refused the key")
		}
		return v, nil
	}
	return nil, errNoKey
}

// hmacNote is note.Signer and note.Verifier for an HMAC key.
type hmacNote struct{ k *Verifying }

func (h hmacNote) Name() string    { return h.k.id }
func (h hmacNote) KeyHash() uint32 { return h.k.hash }

func (h hmacNote) Sign(msg []byte) ([]byte, error) {
	sum, _ := h.k.MAC(append([]byte(checkpointDomain), msg...))
	return sum[:], nil
}

func (h hmacNote) Verify(msg, sig []byte) bool {
	return len(sig) == sha256.Size && h.k.Verify(append([]byte(checkpointDomain), msg...), sig)
}
