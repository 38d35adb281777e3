package caveat

// Limits. Every numeric bound of the package lives here; those of values
// are the format's (spec/CAVEATS.md, spec/FORMAT.md §5 and §6 state the
// same numbers), those of messages are the package's own.

// Lists and text: the bounds the format sets on every list and text
// string of a ticket (internal/wire's MaxListItems and MaxStringBytes,
// which a test there holds to these).
const (
	maxEntries   = 1024 // entries of one list
	maxTextBytes = 1024 // bytes of one list entry or intent
)

// Entry syntax of the list kinds.
const (
	maxToolPart = 128 // server or name of a tool
	maxOp       = 64
	maxAud      = 128
)

// Values.
const (
	// maxHost bounds a host pattern, "*." included (RFC 1035 §2.3.4).
	maxHost = 253
	// maxLabel bounds one label of a host pattern.
	maxLabel = 63
	// holderSize is the length of a SHA-256 JWK thumbprint.
	holderSize = 32
	// argsSize is the length of the SHA-256 digest of an args caveat.
	argsSize = 32
	// maxKeyID bounds an approver's key id (package key's MaxIDBytes).
	maxKeyID = 64
	// MaxApprovers bounds the approvers of one threshold approval (spec/FORMAT.md §6).
	MaxApprovers = 8
	// maxApprovals bounds the approval caveats of one ticket (package
	// token's MaxApprovals).
	maxApprovals = 4
	// maxLocation bounds an approval's location.
	maxLocation = 256
	// maxTime is 9999-12-31T23:59:59Z, the last instant RFC 3339 can write.
	maxTime int64 = 253402300799
)

// Messages.
const (
	// maxShowBytes bounds how much of one value a message echoes.
	maxShowBytes = 128
	// maxShown bounds how many entries of a list a message prints.
	maxShown = 5
)
