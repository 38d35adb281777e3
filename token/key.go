package token

import (
	"fmt"

	"github.com/tickettool/tickettool/key"
)

// Block 0's mode (spec/FORMAT.md §3): the wire values of the two chaining
// algorithms. They are the format's own numbers, not [key.Alg]'s.
const (
	wireHMAC    = 1 // HMAC-SHA256 chain; the verifier holds the root secret
	wireEd25519 = 2 // Ed25519 chain; the verifier holds the root public key
)

// wireMode returns block 0's mode for a root key algorithm, or 0.
func wireMode(a key.Alg) uint64 {
	switch a {
	case key.HMACSHA256:
		return wireHMAC
	case key.Ed25519:
		return wireEd25519
	}
	return 0
}

// algOfMode returns the root key algorithm of block 0's mode, or 0.
func algOfMode(m uint64) key.Alg {
	switch m {
	case wireHMAC:
		return key.HMACSHA256
	case wireEd25519:
		return key.Ed25519
	}
	return 0
}

// keyIDProblem returns why id breaks the wire rule for block 0's key id
// (spec/FORMAT.md §3: 1 to MaxKeyIDBytes bytes 0x21..0x7E), or "". Package
// key's rule for the ids of keys is that and no '+'; a ticket naming an id
// no key can have decodes, and no key verifies it. The reason is a bare
// phrase, to be placed in a malformed error.
func keyIDProblem(id string) string {
	if id == "" || len(id) > MaxKeyIDBytes {
		return fmt.Sprintf("key id must be 1 to %d bytes", MaxKeyIDBytes)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return "key id must be printable ASCII without spaces"
		}
	}
	return ""
}

// Keyring maps key ids to the verifying keys of tickets. It is immutable
// once built and safe for concurrent use.
type Keyring struct {
	keys map[string]*key.Verifying
}

// NewKeyring builds a keyring of root keys (HMAC or Ed25519); two keys with
// one id are an error.
func NewKeyring(keys ...*key.Verifying) (*Keyring, error) {
	r := &Keyring{keys: make(map[string]*key.Verifying, len(keys))}
	for _, k := range keys {
		if wireMode(k.Alg()) == 0 {
			return nil, fmt.Errorf("token: keyring needs hmac or ed25519 keys")
		}
		if _, dup := r.keys[k.ID()]; dup {
			return nil, fmt.Errorf("token: key id %q appears twice in keyring", k.ID())
		}
		r.keys[k.ID()] = k
	}
	return r, nil
}

// Lookup returns the key with the given id.
func (r *Keyring) Lookup(id string) (*key.Verifying, bool) {
	if r == nil {
		return nil, false
	}
	k, ok := r.keys[id]
	return k, ok
}
