package chain

import (
	"time"

	"github.com/tickettool/tickettool/internal/wire"
)

// Limits. Every numeric bound of the package lives here; changing one
// changes which records, logs, keys and checkpoints are accepted, so
// FORMAT.md states them too.
const (
	// MaxRecordBytes bounds the encoding of one record (RFC 8949 item).
	MaxRecordBytes = wire.MaxRecordBytes

	// MaxIDBytes bounds a ticket id and a family id.
	MaxIDBytes = 64

	// MaxNameBytes bounds the tool, operation, check and caveat fields and
	// each subject.
	MaxNameBytes = 1024

	// MaxSubjects bounds the number of subjects of one record.
	MaxSubjects = 64

	// MaxApprovals bounds the approvals (field 17) of one record: one per
	// discharge a request may carry (spec/FORMAT.md §6).
	MaxApprovals = 8

	// MaxReasonBytes bounds the reason of a refusal.
	MaxReasonBytes = 1024

	// MaxNoteBytes bounds the free-form note of a record.
	MaxNoteBytes = 4096

	// MaxBlock is the largest block index a record may name.
	MaxBlock = 1<<16 - 1

	// MaxOriginBytes bounds a log origin (the first checkpoint line).
	MaxOriginBytes = 256

	// MaxTimeMillis is the latest record time, 9999-12-31T23:59:59.999Z,
	// in milliseconds since the Unix epoch; times before the epoch are
	// refused as well.
	MaxTimeMillis = 253402300799999

	// MaxClockStepBack is how far the caller's clock may lie behind the
	// previous record's time before Append refuses (ErrClockBackwards).
	// Within it Append records the previous record's time instead, so that
	// appenders that read the clock before waiting for the lock never
	// produce a record whose time goes backwards.
	MaxClockStepBack = time.Minute

	// MaxBatch bounds the records of one AppendBatch call.
	MaxBatch = 1024

	// MaxCheckpointBytes bounds a signed checkpoint note.
	MaxCheckpointBytes = 8 << 10

	// maxRecordProbes bounds the offsets after an incomplete item at which
	// the scanner tries to decode a record, to tell a torn tail (nothing
	// complete follows) from damage (a complete record follows). Past it
	// the tail counts as damage: Repair refuses rather than guess.
	maxRecordProbes = 8

	// tailWindow is how much of a log's end Open reads to find its last
	// record and the one before it: the last record and a torn tail after
	// it are each at most MaxRecordBytes, and so is its predecessor.
	tailWindow = 3 * MaxRecordBytes

	// quickRead is how much Open reads first at each end of a log: enough
	// for the usual record 0, last record and the one before it.
	quickRead = 4 << 10

	// parallelBatch is how many records Verify reads before it checks
	// their signatures on all cores at once.
	parallelBatch = 256
)

// Limits of checking and messages, the package's own.
const (
	// maxProofHashes bounds the hashes of an inclusion or consistency
	// proof (a tree of 2^63 records needs fewer than 2*63).
	maxProofHashes = 128

	// maxEcho bounds how much of a caller-supplied, non-secret value an
	// error message quotes.
	maxEcho = 64
)
