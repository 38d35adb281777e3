package guard

import (
	"time"

	"github.com/tickettool/tickettool/token"
)

// Limits and defaults. All numeric policy of the package lives here.
const (
	// MaxCount is the largest budget limit or cost a store accepts: 2^53,
	// the largest integer a Lua number (an IEEE double, as Redis scripts
	// use) holds exactly. Every store refuses a larger one, so that moving
	// from one store to another never changes what is admitted. Counters
	// never exceed their limit, so they stay within MaxCount too.
	MaxCount = 1 << 53

	// MaxBudgets bounds Admission.Budgets: a block holds at most one calls
	// and one total caveat, and so does each discharge a call uses (one
	// per approval caveat, at most token.MaxApprovals).
	MaxBudgets = 2*token.MaxBlocks + 2*token.MaxApprovals

	// RequestRetention is how long a store keeps a verdict after the last
	// instant it can matter (the admission's Now, HoldUntil or replay
	// Until, whichever is latest). A retry with the same request id within
	// that time gets the first verdict; a later one is a new admission.
	RequestRetention = 10 * time.Minute

	// CleanEvery is how many admissions a store handle lets pass between
	// two rounds of opportunistic cleanup of expired entries.
	CleanEvery = 64

	// CleanBatch bounds the expired entries of each kind (replay entries,
	// verdicts, counters, revocations) one round of cleanup removes, so no
	// admission pays for more than a bounded amount of it.
	CleanBatch = 64
)

// Receipt field bounds: request-derived fields are cut to fit a receipt
// (marked where cut), so a hostile request cannot make its own refusal
// unrecordable.
const (
	maxName         = 256     // a receipt's tool and op
	maxSubject      = 512     // one subject
	maxSubjectBytes = 8 << 10 // all subjects together, in bytes (chain.MaxSubjects counts them)
)

// MaxSkew bounds the clock skew (verify.Options.Skew) of a [Guard]: a
// family's counters and revocations are kept until block 0's until plus
// MaxSkew, so that no guard on the store admits a ticket after its state
// was forgotten. It matches the CLI's revocation margin.
const MaxSkew = 24 * time.Hour

// Operation key limits (see [OperationStore]): what a store keeps per
// family is bounded, so a caller cannot fill it through keys or results.
const (
	// MaxOperationKey bounds an operation key, in bytes (an
	// Idempotency-Key of a UUID is 36).
	MaxOperationKey = 255

	// MaxOperationTool bounds the tool name kept for listings.
	MaxOperationTool = 256

	// MaxOperationResult bounds one kept result, in bytes: a larger one
	// is not kept, and a repeat of its key is refused saying so.
	MaxOperationResult = 256 << 10

	// MaxFamilyResults bounds the bytes of all results kept in one
	// family: a result that would exceed it is not kept.
	MaxFamilyResults = 4 << 20

	// MaxFamilyOperations bounds the live operation keys of one family:
	// a new key beyond it is refused (ClaimFull) until keys expire with
	// the family.
	MaxFamilyOperations = 4096
)
