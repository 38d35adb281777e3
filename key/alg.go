package key

import (
	"errors"
	"strconv"
)

// Alg names a key's algorithm. Its numeric values are this package's own
// and are never written anywhere: the ticket and receipt formats number
// their algorithms themselves (spec/FORMAT.md §3, chain/FORMAT.md §1).
type Alg uint8

// The algorithms. HMACSHA256 and [Ed25519] are root and receipt keys;
// Ed25519 and [ES256] are holder keys.
const (
	HMACSHA256 Alg = iota + 1 // HMAC-SHA256 (RFC 2104) with a 32-byte secret
	Ed25519                   // Ed25519 (RFC 8032); "EdDSA" in JOSE (RFC 8037)
	ES256                     // ECDSA P-256 with SHA-256 (RFC 7518 §3.4); holder keys only
)

// String returns "hmac", "ed25519" or "es256" (the words of tickettool's
// --alg flags), or "alg(N)".
func (a Alg) String() string {
	switch a {
	case HMACSHA256:
		return "hmac"
	case Ed25519:
		return "ed25519"
	case ES256:
		return "es256"
	}
	return "alg(" + strconv.Itoa(int(a)) + ")"
}

// ParseAlg returns the algorithm String spells s.
func ParseAlg(s string) (Alg, error) {
	for a := HMACSHA256; a <= ES256; a++ {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, errors.New("key: unknown algorithm (want hmac, ed25519 or es256)")
}
