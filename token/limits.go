package token

import "github.com/tickettool/tickettool/internal/strictcbor"

// Prefix starts the text form of every ticket, so that secret scanners can
// recognise a leaked ticket.
const Prefix = "tkt1_"

// The limits of the format; spec/FORMAT.md states the same numbers.
const (
	MaxTicketBytes     = strictcbor.MaxTicketBytes
	MaxTextBytes       = len(Prefix) + (MaxTicketBytes*4+2)/3
	MaxBlocks          = strictcbor.MaxBlocks
	MaxCaveatsPerBlock = strictcbor.MaxCaveatsPerBlock
	MaxKeyIDBytes      = 64
	TicketIDBytes      = 16
	// MaxRebindSigBytes bounds a rebinding signature (ES256 and EdDSA
	// signatures are 64 bytes; room is left for larger curves).
	MaxRebindSigBytes = 256
)
