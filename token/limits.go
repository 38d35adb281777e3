package token

import (
	"time"

	"github.com/tickettool/tickettool/internal/wire"
)

// Prefix starts the text form of every ticket, so that secret scanners can
// recognise a leaked ticket.
const Prefix = "tkt1_"

// DischargePrefix starts the text form of every discharge. It differs from
// [Prefix], so that neither text parses as the other.
const DischargePrefix = "dis1_"

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
	// MaxApprovals bounds the approval caveats of one ticket (at most
	// one per block; spec/FORMAT.md §4.6, §6).
	MaxApprovals = 4

	// A discharge (spec/FORMAT.md §4.6) is small: one block of at most
	// MaxDischargeCaveats caveats, at most MaxDischargeBytes encoded.
	MaxDischargeBytes     = wire.MaxDischargeBytes
	MaxDischargeTextBytes = len(DischargePrefix) + (MaxDischargeBytes*4+2)/3
	MaxDischargeCaveats   = wire.MaxCaveatsPerBlock
	// MaxDischargeLifetime bounds until − now of a discharge: a verifier
	// refuses a longer one (spec/FORMAT.md §7 step 6a), so Approve does
	// not make one.
	MaxDischargeLifetime = 24 * time.Hour
)

// The sizes of a discharge's fixed-size fields (spec/FORMAT.md §4.6).
const (
	dischargeNonceBytes = 16
	bindingBytes        = 32
	dischargeSigBytes   = 64
)
