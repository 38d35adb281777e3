package token

import (
	"errors"
	"strconv"

	"github.com/tickettool/tickettool/caveat"
)

// Sentinels callers branch on with errors.Is. Every error this package
// returns for a ticket is an *[Error] wrapping one of them.
var (
	// ErrMalformed: the input is not a ticket in the v1 format (wrong
	// prefix, bad base64, non-canonical CBOR, missing or unknown fields,
	// values out of range, over a limit). Nothing about it is trusted.
	ErrMalformed = errors.New("token: malformed ticket")
	// ErrKeyMismatch: the verifying key is not the one the ticket names,
	// or its mode differs from the ticket's.
	ErrKeyMismatch = errors.New("token: key does not match ticket")
	// ErrChain: a tag, signature or seal does not verify.
	ErrChain = errors.New("token: chain does not verify")
	// ErrWiden: an appended caveat is not at least as strict as the
	// ticket's effective constraint, or no block may be appended.
	ErrWiden = errors.New("token: attenuation would widen the ticket")
	// ErrSealed: the ticket is sealed; nothing can be appended.
	ErrSealed = errors.New("token: ticket is sealed")
	// ErrTooLarge: minting, appending or sealing would make a ticket over
	// a limit no decoder accepts: larger than [MaxTicketBytes], or with
	// more than [MaxApprovals] approval caveats.
	ErrTooLarge = errors.New("token: ticket too large")
	// ErrHolder: rebinding a bound ticket without the current holder's key.
	ErrHolder = errors.New("token: rebinding needs the current holder's key")
	// ErrApproval: [Ticket.Binding] was asked for a block that does not
	// exist or carries no approval caveat.
	ErrApproval = errors.New("token: no approval caveat")
	// ErrMalformedDischarge: the input is not a discharge in the v1 format
	// (wrong prefix, bad base64, non-canonical CBOR, missing or unknown
	// fields, values out of range, over a limit, no until caveat, an
	// approval caveat). errors.Is matches it with [ErrMalformed] too:
	// malformed input is malformed, ticket or discharge.
	ErrMalformedDischarge error = malformedDischarge{}
	// ErrApprove: [Approve] refuses to make the discharge asked for (a
	// key that is not Ed25519, no until caveat, an approval caveat, a
	// kind twice or unknown, over a limit).
	ErrApprove = errors.New("token: cannot make the discharge")
)

// malformedDischarge is ErrMalformedDischarge's type: a sentinel of its
// own message that also is ErrMalformed for errors.Is.
type malformedDischarge struct{}

func (malformedDischarge) Error() string        { return "token: malformed discharge" }
func (malformedDischarge) Is(target error) bool { return target == ErrMalformed }

// Error describes what is wrong with a ticket, where. It never contains a
// key, tag or signature.
type Error struct {
	Block  int         // the block concerned, or -1 for the ticket as a whole
	Kind   caveat.Kind // the caveat kind concerned, or 0
	Reason string      // what is wrong, for a person
	Err    error       // one of the sentinels above
}

func (e *Error) Error() string {
	s := e.Err.Error()
	if e.Block >= 0 {
		s += ": block " + strconv.Itoa(e.Block)
	}
	if e.Kind != 0 {
		s += ": caveat " + e.Kind.String()
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

func malformed(block int, reason string) error {
	return &Error{Block: block, Reason: reason, Err: ErrMalformed}
}

// fromCaveat turns a caveat error into a token error of class sentinel,
// keeping the kind and reason.
func fromCaveat(block int, err error, sentinel error) error {
	var ce *caveat.Error
	if errors.As(err, &ce) {
		return &Error{Block: block, Kind: ce.Kind, Reason: ce.Reason, Err: sentinel}
	}
	return &Error{Block: block, Reason: err.Error(), Err: sentinel}
}

// errEmpty is the error of every operation on a zero Ticket, which no
// decoder or minter returns.
func errEmpty() error {
	return &Error{Block: -1, Reason: "the ticket has no blocks (a zero Ticket: use Parse, Decode or Mint)", Err: ErrMalformed}
}
