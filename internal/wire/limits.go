package wire

// The limits every decoder of this module enforces. They are deliberately
// small: a ticket describes one piece of work, and a receipt one decision.
// Changing any of them changes which inputs are accepted, so spec/ states
// them too and a test there pins each value.
const (
	// MaxTicketBytes bounds the CBOR encoding of a whole ticket.
	MaxTicketBytes = 64 << 10
	// MaxBlocks bounds the number of blocks in one ticket.
	MaxBlocks = 32
	// MaxCaveatsPerBlock bounds the caveats (map pairs) in one block.
	MaxCaveatsPerBlock = 16
	// MaxListItems bounds the entries of one list-valued caveat.
	MaxListItems = 1024
	// MaxStringBytes bounds every text string (caveat entries, key ids,
	// intents) inside a block.
	MaxStringBytes = 1024
	// MaxNesting bounds how deeply arrays and maps nest in one item. The
	// deepest legitimate item (block → caveats → list) has depth 3.
	MaxNesting = 4
	// MaxRecordBytes bounds one receipt record of the receipt chain.
	MaxRecordBytes = 16 << 10
	// MaxDischargeBytes bounds the CBOR encoding of a whole discharge
	// (an approver's signed approval, spec/FORMAT.md §4.6).
	MaxDischargeBytes = 4 << 10
)

// Chunk sizes: how many caveats and list entries a CaveatDecoder
// allocates at once when fewer are needed.
const (
	cavChunk  = 4
	listChunk = 8
)

// Limits parametrise the canonical-form check for one kind of item.
type Limits struct {
	MaxDepth    int // arrays and maps nested at most this deep (top level is 1)
	MaxItems    int // entries of any single array, pairs of any single map
	MaxText     int // bytes of any single text string
	MaxBytes    int // bytes of any single byte string
	MaxItemSize int // bytes of the whole item
}

// TicketLimits returns the limits for a ticket envelope and for each
// block (a function, so that no caller can change them for everyone).
func TicketLimits() Limits {
	return Limits{
		MaxDepth:    MaxNesting,
		MaxItems:    MaxListItems,
		MaxText:     MaxStringBytes,
		MaxBytes:    MaxTicketBytes,
		MaxItemSize: MaxTicketBytes,
	}
}

// RecordLimits returns the limits for one receipt record.
func RecordLimits() Limits {
	return Limits{
		MaxDepth:    MaxNesting,
		MaxItems:    MaxListItems,
		MaxText:     MaxRecordBytes,
		MaxBytes:    MaxRecordBytes,
		MaxItemSize: MaxRecordBytes,
	}
}
