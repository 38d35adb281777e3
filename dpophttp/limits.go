package dpophttp

import (
	"time"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Limits and defaults of the server side. All numeric policy of the
// middleware lives here.
const (
	// DefaultMaxBodyBytes bounds a request body the middleware reads: a
	// JSON body, whose args digest a ticket may constrain, and a form
	// body, which must not carry a ticket (RFC 6750 §2.2 is refused).
	// A larger body is refused with 413 before the ticket is checked.
	DefaultMaxBodyBytes = 1 << 20

	// DefaultBodyTimeout bounds how long the middleware waits for a body
	// it reads (JSON or form, DefaultMaxBodyBytes at most): a client that
	// sends it slower is refused with 408, so it cannot hold a request
	// open for ever before the ticket is checked.
	DefaultBodyTimeout = 30 * time.Second

	// MaxHeaderBytes bounds the Authorization, DPoP and discharge header
	// values together: room for the longest ticket text, proof and
	// discharges and their schemes and separators; a larger request is
	// malformed.
	MaxHeaderBytes = token.MaxTextBytes + dpop.MaxProofBytes + verify.MaxDischarges*(token.MaxDischargeTextBytes+2) + 64

	// DefaultNonceWindow is the length of one nonce window: a nonce is
	// accepted in the window it was issued in and the next one, so for
	// between one and two windows (RFC 9449 §8: the server decides).
	DefaultNonceWindow = 2 * time.Minute

	// MinNonceKeyBytes is the shortest nonce key New accepts.
	MinNonceKeyBytes = 32

	// DefaultHold is how long an allowed request's reservation waits for
	// its handler to return; a handler that runs longer has it captured
	// when the hold ends (a reservation whose outcome is unknown counts
	// as spent).
	DefaultHold = 2 * time.Minute

	// DefaultStoreTimeout bounds one admission or settlement in the
	// store; a store that does not answer in time refuses the request.
	DefaultStoreTimeout = 5 * time.Second

	// MaxPreparedBytes bounds the ticket texts a middleware keeps
	// prepared (their chains checked once), in bytes; a ticket longer
	// than a sixteenth of it is checked on every request.
	MaxPreparedBytes = 4 << 20

	// maxDescription bounds error_description, in bytes.
	maxDescription = 512
)
