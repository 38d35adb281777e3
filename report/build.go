package report

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Options are what [Build] needs besides the log.
type Options struct {
	Key        *key.Verifying // the receipt key (a public key suffices for Ed25519)
	Origin     string         // the log's origin ("tickettool" for the CLI's logs)
	Checkpoint []byte         // a signed checkpoint the log must match, or nil
	// CheckpointName names the checkpoint on the page (its file name).
	CheckpointName string
	// Tickets are tickets given beside the log: they supply the scope of
	// blocks whose minting or delegation the log does not record.
	Tickets []Ticket
	// Now is when the page is made; it is printed, nothing depends on it.
	Now time.Time
}

// Ticket is a ticket given beside the log, verified by the caller (the
// page shows whether it was).
type Ticket struct {
	Ticket *token.Ticket
	// Decision is the ticket's verification under the root key, nil
	// when it was not verified (no root key given).
	Decision *verify.Decision
	// Problem says why the ticket's chain did not verify, "" when it
	// did or when no root key was given.
	Problem string
	// Usage is, when a store was given, what Decision.Budgets have
	// spent in it (guard.Store.Spent), in the same order, and Held what
	// of that is still reserved (guard.HeldReporter.Held).
	Usage []guard.Usage
	Held  []uint64
}

// Verdict is what the verification found.
type Verdict struct {
	OK       bool   // every record verified (and matched the checkpoint)
	Records  int64  // records that verified: before the break when not OK
	Bytes    int64  // bytes of the log that verified (OK only)
	Head     string // hex SHA-256 of the last record (OK only)
	Root     string // hex RFC 6962 root (OK only)
	Key      string // the key: name and key hash
	Problem  string // "", broken, torn, wrong-key, truncated, forked, checkpoint
	Reason   string // the verification's error
	Break    int64  // index of the first record that did not verify, or -1
	Offset   int64  // its byte offset, or -1
	CPSize   int64  // records the checkpoint commits to (0 without one)
	CPName   string
	LastTime time.Time
}

// Build verifies the log at path with chain.VerifyFile and aggregates the
// records that verified into a Report. It returns an error only when the
// log cannot be read at all (a missing file, a bad key or origin) or is no
// receipt log (chain.ErrNotLog); a log that does not verify is a Report
// whose Verdict says why.
func Build(path string, o Options) (*Report, error) {
	r := newReport(path, o)
	cpSize := int64(0)
	if o.Checkpoint != nil {
		if c, err := chain.OpenCheckpoint(o.Checkpoint, o.Key, o.Origin); err == nil {
			cpSize = c.Size
		}
	}
	for i := range o.Tickets {
		r.addTicket(i, &o.Tickets[i])
	}
	sum, err := chain.VerifyFile(path, o.Key, o.Origin, chain.VerifyOptions{Checkpoint: o.Checkpoint, Each: r.add})
	var pe *fs.PathError
	if err != nil && (errors.As(err, &pe) || errors.Is(err, chain.ErrNotLog)) {
		return nil, err
	}
	r.Verdict = verdictOf(sum, err, r.seen, keyName(o.Key), o.CheckpointName, cpSize)
	if err != nil && r.Verdict.Problem == "" {
		return nil, err // the key or origin was refused before any record
	}
	r.finish()
	return r, nil
}

// verdictOf turns VerifyFile's result into a Verdict; seen is the number
// of records that reached Each.
func verdictOf(sum *chain.Summary, err error, seen int64, keyName, cpName string, cpSize int64) Verdict {
	v := Verdict{Key: keyName, Break: -1, Offset: -1, CPName: cpName, CPSize: cpSize, Records: seen}
	if err == nil {
		v.OK, v.Records, v.Bytes = true, sum.Count, sum.Size
		v.Head, v.Root, v.LastTime = fmt.Sprintf("%x", sum.Head), fmt.Sprintf("%x", sum.Root[:]), sum.LastTime
		return v
	}
	v.Reason = err.Error()
	var be *chain.BreakError
	var ce *chain.CheckpointError
	switch {
	case errors.As(err, &be):
		v.Problem, v.Break, v.Offset = "broken", be.Index, be.Offset
		if be.Torn {
			v.Problem = "torn"
		}
	case errors.Is(err, chain.ErrWrongKey):
		v.Problem = "wrong-key"
	case errors.As(err, &ce):
		v.Problem = "forked"
		if errors.Is(err, chain.ErrTruncated) {
			v.Problem = "truncated"
		}
	case errors.Is(err, chain.ErrCheckpoint):
		v.Problem = "checkpoint"
	case errors.Is(err, chain.ErrBroken), errors.Is(err, chain.ErrMalformed):
		v.Problem = "broken"
	default:
		if seen > 0 {
			v.Problem = "unreadable"
		}
	}
	return v
}

// keyName is the key's name and signed-note key hash, as chain's errors
// name a key.
func keyName(k *key.Verifying) string {
	if k == nil {
		return ""
	}
	v, err := k.NoteVerifier()
	if err != nil {
		return k.ID()
	}
	return fmt.Sprintf("%s+%08x", v.Name(), v.KeyHash())
}
