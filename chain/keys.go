package chain

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tickettool/tickettool/key"
)

// Field 15 of a record (FORMAT.md §1): the wire values of the two
// algorithms. They are the format's own numbers, not [key.Alg]'s.
const (
	wireEd25519 = 1
	wireHMAC    = 2
)

// wireAlg returns field 15 for a key algorithm, or 0.
func wireAlg(a key.Alg) uint8 {
	switch a {
	case key.Ed25519:
		return wireEd25519
	case key.HMACSHA256:
		return wireHMAC
	}
	return 0
}

// algOfWire returns the key algorithm of field 15, or 0.
func algOfWire(w uint8) key.Alg {
	switch w {
	case wireEd25519:
		return key.Ed25519
	case wireHMAC:
		return key.HMACSHA256
	}
	return 0
}

// wireName is the name of a record's algorithm in Show's output and the
// receipt vectors: "ed25519" or "hmac-sha256".
func wireName(a key.Alg) string {
	if a == key.HMACSHA256 {
		return "hmac-sha256"
	}
	return a.String()
}

// sigSize is the length of a signature by a, or 0 for an algorithm
// records are not signed with.
func sigSize(a key.Alg) int {
	switch a {
	case key.Ed25519:
		return 64
	case key.HMACSHA256:
		return 32
	}
	return 0
}

// errNoKey is returned for a nil key or one of an algorithm receipts are
// not signed with (a holder's).
var errNoKey = errors.New("chain: no receipt key (hmac or ed25519)")

func checkSigning(k *key.Signing) error {
	if sigSize(k.Alg()) == 0 {
		return errNoKey
	}
	return nil
}

func checkVerifying(k *key.Verifying) error {
	if sigSize(k.Alg()) == 0 {
		return errNoKey
	}
	return nil
}

// keyName is "name+1a2b3c4d": the key's signed-note name and key hash, as
// checkpoints' signature lines identify it.
func keyName(k *key.Verifying) string {
	v, err := k.NoteVerifier()
	if err != nil {
		return k.ID()
	}
	return fmt.Sprintf("%s+%08x", v.Name(), v.KeyHash())
}

// validOrigin is the rule of a log origin (FORMAT.md §2): 1 to
// MaxOriginBytes of UTF-8 without spaces, control characters or '+'.
func validOrigin(origin string) bool {
	return origin != "" && len(origin) <= MaxOriginBytes && utf8.ValidString(origin) &&
		strings.IndexFunc(origin, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) < 0 &&
		!strings.Contains(origin, "+")
}
