package chain

import (
	"errors"
	"strconv"

	"github.com/tickettool/tickettool/internal/echo"
)

// Kind says what a record records. It is field 3 of a record; values
// outside KindIntent..KindReplayed are refused on encode and decode.
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
	KindReplayed  Kind = 9 // a repeat under an operation key got the first result back: nothing ran, nothing was charged
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
	KindReplayed:  "replayed",
}

func (k Kind) valid() bool { return k >= KindIntent && k <= KindReplayed }

// String returns the kind's name ("intent", "minted", "delegated",
// "allowed", "refused", "other", "captured", "released",
// "replayed"), or "kind(N)" for
// an invalid kind.
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind returns the kind named s, as String spells it.
func ParseKind(s string) (Kind, error) {
	for k := KindIntent; k <= KindReplayed; k++ {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return 0, errors.New("chain: unknown record kind " + quote(s))
}

func quote(s string) string { return echo.Quote(s, maxEcho) }
