package chain

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/tickettool/tickettool/key"
)

var (
	// ErrBroken matches (errors.Is) every *[BreakError]: the log does not
	// verify. A torn tail matches it too.
	ErrBroken = errors.New("chain: broken chain")

	// ErrTorn matches a *[BreakError] whose Torn is set: the log ends in an
	// incomplete record, as a crash mid-append leaves it, and no complete
	// record follows it. Repair drops it.
	ErrTorn = errors.New("chain: torn tail")

	// ErrMalformed is returned (wrapped) by [Decode], Marshal and
	// SigningInput for a record that is not one valid canonical record.
	ErrMalformed = errors.New("chain: malformed record")

	// ErrTruncated matches a *[CheckpointError]: the log holds fewer records
	// than a checkpoint of it, so records were removed (truncation) or an
	// older copy was put back (rollback).
	ErrTruncated = errors.New("chain: log is shorter than its checkpoint")

	// ErrForked matches a *[CheckpointError]: the log's first records are not
	// the ones a checkpoint (or a consistency proof) commits to.
	ErrForked = errors.New("chain: log does not match its checkpoint")

	// ErrCheckpoint is returned (wrapped) for a checkpoint that is not a
	// well-formed note signed by the expected key for the expected origin.
	ErrCheckpoint = errors.New("chain: checkpoint does not verify")

	// ErrClosed is returned by Append on a closed [Log].
	ErrClosed = errors.New("chain: log is closed")

	// ErrClockBackwards is returned by Append when the caller's time lies
	// more than [MaxClockStepBack] before the last record's time.
	ErrClockBackwards = errors.New("chain: clock is behind the last record")

	// ErrWrongAlg is returned (wrapped) when a record's algorithm is not the
	// key's; a *[KeyError] of another algorithm matches it too.
	ErrWrongAlg = errors.New("chain: record algorithm does not match the key")

	// ErrWrongKey matches a *[KeyError]: the key is not the one the log was
	// signed with.
	ErrWrongKey = errors.New("chain: the key is not the log's")

	// ErrNotLog matches a *[BreakError] whose NotLog is set: the file does
	// not start with a record, so it is no receipt log at all.
	ErrNotLog = errors.New("chain: not a receipt log")
)

// KeyError says that a key is not the one a log was signed with: its
// first record does not verify under the key and neither does any other
// (so no single record was tampered with: the whole log is another key's,
// or every record was rewritten). A record carries no key id, so the log's
// key is known only by its algorithm. It matches [ErrWrongKey], and
// [ErrWrongAlg] when the algorithms differ. It does not match [ErrBroken].
type KeyError struct {
	Key    string  // the key given: its name and key hash, "name+1a2b3c4d"
	KeyAlg key.Alg // the key's algorithm
	LogAlg key.Alg // the algorithm of the log's first record
}

func (e *KeyError) Error() string {
	if e.KeyAlg != e.LogAlg {
		return fmt.Sprintf("chain: key %s is not the log's key: the key is %s, the log is signed with %s", e.Key, e.KeyAlg, e.LogAlg)
	}
	return fmt.Sprintf("chain: key %s is not the log's key: no record of the log verifies under it (the log is signed with another %s key)", e.Key, e.LogAlg)
}

// Is reports whether target is [ErrWrongKey], or [ErrWrongAlg] when the
// algorithms differ.
func (e *KeyError) Is(target error) bool {
	return target == ErrWrongKey || (target == ErrWrongAlg && e.KeyAlg != e.LogAlg)
}

// BreakError says where a log stops verifying: the index of the first
// record that does not verify (for a torn tail, the index the incomplete
// record would have had), the byte offset where that record starts, and
// why. Verify stops at the first break.
//
// Torn is set only when the file ends inside that record (or holds only
// zero bytes from its offset) and no complete, well-formed record starts
// anywhere after its first byte, as a crash mid-append leaves a log. A
// record cut short with a complete record after it is damage: Torn is
// false and [Repair] refuses it.
type BreakError struct {
	Index  int64
	Offset int64
	Reason string
	Torn   bool // a torn tail: an incomplete last record; Repair drops it
	NotLog bool // the file does not start with a record: it is no log

	keyFail bool // record 0's algorithm or signature is not the key's
}

func (e *BreakError) Error() string {
	if e.NotLog {
		return "chain: not a receipt log: " + e.Reason
	}
	if e.Torn {
		return fmt.Sprintf("chain: torn tail at offset %d (record %d): %s (an interrupted append; a repair drops it)", e.Offset, e.Index, e.Reason)
	}
	return fmt.Sprintf("chain: broken at record %d (offset %d): %s", e.Index, e.Offset, e.Reason)
}

// Is reports whether target is [ErrBroken], [ErrTorn] for a torn tail, or
// [ErrNotLog] for a file that is no log.
func (e *BreakError) Is(target error) bool {
	return target == ErrBroken || (e.Torn && target == ErrTorn) || (e.NotLog && target == ErrNotLog)
}

// notLog marks a break at the very first item as NotLog when that item
// does not even start like a record (a CBOR map).
func notLog(be *BreakError, first []byte) *BreakError {
	if be.Index == 0 && be.Offset == 0 && !be.Torn && len(first) > 0 && first[0]>>5 != 5 {
		be.NotLog = true
		be.Reason = fmt.Sprintf("the file does not start with a record (its first byte is 0x%02x, a record starts with a CBOR map head)", first[0])
	}
	return be
}

// CheckpointError says how a log (or a newer checkpoint) differs from a
// checkpoint. It matches [ErrTruncated] or [ErrForked].
type CheckpointError struct {
	LogSize        int64 // records in the log (or the newer checkpoint)
	CheckpointSize int64 // records the checkpoint commits to
	Reason         string
	Err            error // ErrTruncated or ErrForked
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("%v: log has %d records, checkpoint %d: %s", e.Err, e.LogSize, e.CheckpointSize, e.Reason)
}

func (e *CheckpointError) Unwrap() error { return e.Err }

// Torn describes what [Repair] dropped: Bytes bytes from Offset to the end
// of the file. Bytes is 0 when there was nothing to drop.
type Torn struct {
	Offset int64
	Bytes  int64
}

// errNotRegular is the reason for a log path that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// fileErr returns the error of a file system step: "chain: OP PATH:
// REASON", one prefix and the system's reason (not the os package's own
// "open PATH:" again). It stays an *fs.PathError for errors.As and keeps
// the reason for errors.Is (fs.ErrNotExist, ...).
func fileErr(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("chain: %w", &fs.PathError{Op: op, Path: path, Err: err})
}

// readReason is the reason of a read error, without the os package's
// "read PATH:" when it has one.
func readReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
