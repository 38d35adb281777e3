package chain

import (
	"errors"
	"strconv"

	"github.com/tickettool/tickettool/internal/echo"
)

// Kind says what a record records. It is field 3 of a record; values
// outside KindIntent..KindReleased are refused on encode and decode.
type Kind uint8

// The kinds of record. KindOther is for anything else a caller records,
// described by the record's note.
const (
	KindIntent    Kind = 1 // a person's request, in its own words
	KindMinted    Kind = 2 // a ticket was minted (block 0)
	KindDelegated Kind = 3 // a block was appended to a ticket
	KindAllowed   Kind = 4 // a request was allowed
	KindRefused   Kind = 5 // a request was refused; check and caveat say why
	KindOther     Kind = 6 // anything else
	KindCaptured  Kind = 7 // an allowed call ran: its reservation is charged for good
	KindReleased  Kind = 8 // an allowed call did not run: its reservation was given back
)

var kindNames = [...]string{
	KindIntent:    "intent",
	KindMinted:    "minted",
	KindDelegated: "delegated",
	KindAllowed:   "allowed",
	KindRefused:   "refused",
	KindOther:     "other",
	KindCaptured:  "captured",
	KindReleased:  "released",
}

func (k Kind) valid() bool { return k >= KindIntent && k <= KindReleased }

// String returns the kind's name ("intent", "minted", "delegated",
// "allowed", "refused", "other", "captured", "released"), or "kind(N)" for
// an invalid kind.
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind returns the kind named s, as String spells it.
func ParseKind(s string) (Kind, error) {
	for k := KindIntent; k <= KindReleased; k++ {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return 0, errors.New("chain: unknown record kind " + quote(s))
}

// Alg is a signature algorithm of records and checkpoints. It is field 15
// of a record; the verifying key decides which algorithm is acceptable,
// never the record.
type Alg uint8

// The algorithms.
const (
	// AlgEd25519 signs with Ed25519 (RFC 8032); anyone holding the public
	// key verifies.
	AlgEd25519 Alg = 1
	// AlgHMACSHA256 tags with HMAC-SHA256 (RFC 2104); only a holder of the
	// secret verifies.
	AlgHMACSHA256 Alg = 2
)

// String returns "ed25519" or "hmac-sha256", or "alg(N)".
func (a Alg) String() string {
	switch a {
	case AlgEd25519:
		return "ed25519"
	case AlgHMACSHA256:
		return "hmac-sha256"
	}
	return "alg(" + strconv.Itoa(int(a)) + ")"
}

// ParseAlg returns the algorithm named s, as String spells it.
func ParseAlg(s string) (Alg, error) {
	switch s {
	case "ed25519":
		return AlgEd25519, nil
	case "hmac-sha256":
		return AlgHMACSHA256, nil
	}
	return 0, errors.New("chain: unknown algorithm " + quote(s))
}

// sigSize is the length of a signature by a, or 0 for an invalid a.
func (a Alg) sigSize() int {
	switch a {
	case AlgEd25519:
		return 64
	case AlgHMACSHA256:
		return 32
	}
	return 0
}

func quote(s string) string { return echo.Quote(s, maxEcho) }
