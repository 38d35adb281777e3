package token

import "github.com/tickettool/tickettool/internal/wire"

// Prefix starts the text form of every ticket, so that secret scanners can
// recognise a leaked ticket.
const Prefix = "tkt1_"

// The limits of the format; spec/FORMAT.md states the same numbers.
const (
	MaxTicketBytes     = wire.MaxTicketBytes
	MaxTextBytes       = len(Prefix) + (MaxTicketBytes*4+2)/3
	MaxBlocks          = wire.MaxBlocks
	MaxCaveatsPerBlock = wire.MaxCaveatsPerBlock
	MaxKeyIDBytes      = 64
	TicketIDBytes      = 16
	// MaxRebindSigBytes bounds a rebinding signature (ES256 and EdDSA
	// signatures are 64 bytes; room is left for larger curves).
	MaxRebindSigBytes = 256
)
