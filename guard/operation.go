package guard

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

// An operation key is the caller's name for one operation, chosen before
// the first attempt and sent again with every retry of it: the MCP _meta
// member [OperationMeta], the HTTP Idempotency-Key header
// (draft-ietf-httpapi-idempotency-key-header), the command line's verify
// --operation. It is scoped to the ticket family (block 0's id) and bound
// to the request it first named ([OperationBinding]): the same key with
// the same request gets the first outcome back and runs and charges
// nothing again; with another request it is refused. A key is 1 to
// [MaxOperationKey] bytes of printable ASCII (0x21 to 0x7e).
var (
	// ErrNoOperation is returned by FinishOperation and DropOperation
	// for a key the store holds no running operation of that request
	// under.
	ErrNoOperation = errors.New("guard: no running operation under this key for this request")
)

// ValidateOperationKey refuses a key that is empty, longer than
// MaxOperationKey or holds a byte outside printable ASCII.
func ValidateOperationKey(key string) error {
	if key == "" || len(key) > MaxOperationKey {
		return invalid("an operation key must be 1 to %d bytes", MaxOperationKey)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return invalid("an operation key must be printable ASCII without spaces")
		}
	}
	return nil
}

// OperationBinding is what an operation key is bound to: the request's
// tool, op, subjects (paths and URLs), audience and args digest, so that a
// key reused for another request is told apart from a retry.
func OperationBinding(req *caveat.Request) [32]byte {
	b := append([]byte(nil), "tickettool/v1 operation\x00"...)
	b = appendString(b, req.Tool)
	b = appendString(b, req.Op)
	b = binary.BigEndian.AppendUint64(b, uint64(len(req.Paths)))
	for _, p := range req.Paths {
		b = appendString(b, p)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(len(req.URLs)))
	for _, u := range req.URLs {
		b = appendString(b, u)
	}
	b = appendString(b, req.Audience)
	b = appendString(b, string(req.Args))
	return sha256.Sum256(b)
}

// OperationStart asks a store to claim an operation key for a request.
type OperationStart struct {
	Family  token.BlockID
	Key     string
	Binding [32]byte  // OperationBinding of the request
	Request RequestID // the admission that runs it
	Tool    string    // for listings; cut to MaxOperationTool bytes
	Now     time.Time
	// HoldUntil is until when the operation counts as in flight without
	// an outcome (the admission's HoldUntil; Now when it captures at
	// once). After it an unfinished operation's outcome is unknown.
	HoldUntil time.Time
	// Expires is the family's expiry (Admission.Expires): the key and
	// its result are kept until then; zero keeps them for ever.
	Expires time.Time
}

// Claim is a store's answer to StartOperation.
type Claim uint8

const (
	ClaimNew      Claim = iota + 1 // the key was free: it now names this request, which runs
	ClaimInFlight                  // the key's first request is still running (within its hold)
	ClaimUnknown                   // the first request started but its outcome was never recorded, and its hold ended
	ClaimMismatch                  // the key names another request (another binding)
	ClaimReplay                    // the first request finished and its result is kept: Operation.Result
	ClaimNotKept                   // the first request finished, but its result was over the limits and not kept
	ClaimFull                      // the family holds MaxFamilyOperations keys already
)

var claimNames = [...]string{"", "new", "in flight", "outcome unknown", "another request", "replay", "result not kept", "full"}

// String names the claim.
func (c Claim) String() string {
	if int(c) < len(claimNames) && c != 0 {
		return claimNames[c]
	}
	return "unknown"
}

// OperationState is where a keyed operation stands in the store.
type OperationState uint8

const (
	OperationRunning  OperationState = iota + 1 // started; no outcome recorded
	OperationFinished                           // ran; its result (Kept) or only its outcome recorded
	OperationReleased                           // did not run (refused, or released): the key is free again
	OperationWaiting                            // refused for want of an approval: the key is free for the approved retry
)

// Operation is what a store keeps of one keyed operation.
type Operation struct {
	Key       string
	Binding   [32]byte
	Request   RequestID
	Tool      string
	State     OperationState
	Started   time.Time
	HoldUntil time.Time
	Finished  time.Time // zero while running
	// Kept reports that Result is the first result, replayed to every
	// repeat; a finished operation whose result was over the limits has
	// Kept false and no Result.
	Kept    bool
	Result  []byte
	Replays uint64    // how many repeats got the result back
	Replay  time.Time // the last of them
	Expires time.Time
}

// OperationStore is a [Store] that keeps operation keys and their first
// results. Every store of this module implements it, and the conformance
// suite (guard/storetest) checks it; several handles to one store share
// its operations, so a guard that restarts, or another on the same store,
// replays a result the first one kept.
type OperationStore interface {
	// StartOperation claims s.Key in s.Family for s.Request in one
	// atomic step: a key that is free (never used, or expired with its
	// family) is recorded as running and ClaimNew returned; otherwise the
	// claim says why the request must not run, and for ClaimReplay the
	// returned Operation holds the kept result (the store counts the
	// replay).
	StartOperation(ctx context.Context, s OperationStart) (Claim, Operation, error)

	// FinishOperation records the result of the running operation key
	// names, started by request: kept when it is at most
	// MaxOperationResult bytes and the family's kept results stay within
	// MaxFamilyResults, else only the outcome is recorded (kept false). A
	// nil result records an outcome without a result (an empty one).
	FinishOperation(ctx context.Context, family token.BlockID, key string, request RequestID, result []byte, now time.Time) (kept bool, err error)

	// DropOperation ends the running operation key names, started by
	// request, which did not run, in state (OperationReleased: refused or
	// released; OperationWaiting: refused for want of an approval): the
	// key is free again and a retry is decided afresh; the record stays
	// for listings until a new start takes the key.
	DropOperation(ctx context.Context, family token.BlockID, key string, request RequestID, state OperationState) error

	// Operations lists the family's keyed operations not expired at now,
	// oldest first, without their results.
	Operations(ctx context.Context, family token.BlockID, now time.Time) ([]Operation, error)
}

// ValidateDropState refuses a state DropOperation does not end in.
func ValidateDropState(s OperationState) error {
	if s != OperationReleased && s != OperationWaiting {
		return invalid("an operation that did not run ends released or waiting, not in state %d", s)
	}
	return nil
}

// ValidateOperationStart refuses a malformed start.
func ValidateOperationStart(s *OperationStart) error {
	if err := ValidateOperationKey(s.Key); err != nil {
		return err
	}
	if s.Request == (RequestID{}) {
		return invalid("an operation needs a request id")
	}
	if len(s.Tool) > MaxOperationTool {
		s.Tool = s.Tool[:MaxOperationTool]
	}
	return nil
}

// OperationExpired reports whether o is expired at now (its family's
// expiry passed).
func OperationExpired(o *Operation, now time.Time) bool {
	return !o.Expires.IsZero() && now.After(o.Expires)
}

// DecideStart is the step every store takes for StartOperation once it
// has read the key's record (nil when absent or expired) and the family's
// count of live keys: the claim, and whether the record is now
// s's (ClaimNew) or a replay to count (ClaimReplay).
func DecideStart(s *OperationStart, old *Operation, count int) Claim {
	if old != nil && (old.State == OperationReleased || old.State == OperationWaiting) {
		return ClaimNew // the key is free again; the record is overwritten
	}
	switch {
	case old == nil && count >= MaxFamilyOperations:
		return ClaimFull
	case old == nil:
		return ClaimNew
	case old.Binding != s.Binding:
		return ClaimMismatch
	case old.State == OperationRunning && !s.Now.After(old.HoldUntil):
		return ClaimInFlight
	case old.State == OperationRunning:
		return ClaimUnknown
	case !old.Kept:
		return ClaimNotKept
	}
	return ClaimReplay
}

// NewOperation is the record ClaimNew writes.
func NewOperation(s *OperationStart) Operation {
	hold := s.HoldUntil
	if hold.Before(s.Now) {
		hold = s.Now
	}
	return Operation{Key: s.Key, Binding: s.Binding, Request: s.Request, Tool: s.Tool,
		State: OperationRunning, Started: s.Now, HoldUntil: hold, Expires: s.Expires}
}
