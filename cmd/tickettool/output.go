package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/verify"
)

// The --json outputs of verify, proof check and receipt verify share one
// rule: a command that reaches an outcome (exit status 0 or 1) prints one
// JSON object on standard output and nothing on standard error, its hints
// included in the object; a command that does not (exit status 2, or a
// store or log that fails) prints nothing on standard output and its
// error on standard error, as without --json.
const jsonRule = `With --json it prints one JSON object on one line instead, with the same
exit status, and nothing on standard error for an outcome (exit 0 or 1;
what a person could do about a refusal is in hints). A usage error or
unreadable input (exit 2), or a failing store or log, prints no JSON: the
error goes to standard error as without --json (verify prints a store
that fails as a refusal instead).

`

// writeJSON prints v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// decidedErr is the error of a command whose refusal (or invalid
// outcome) is already on standard output: exit status 1, and only the
// hints on standard error.
func decidedErr(outcome string, hints ...string) error {
	return fail(exitRefused, fmt.Errorf("%s: %w", outcome, errOnStdout), hints...)
}

// decisionJSON is verify --json's object.
type decisionJSON struct {
	Decision string        `json:"decision"`  // allowed, refused, valid or invalid
	Refusals []refusalJSON `json:"refusals"`  // empty when allowed or valid
	FamilyID string        `json:"family_id"` // hex; "" when the chain did not verify
	BlockIDs []string      `json:"block_ids"` // hex, one per block; empty when the chain did not verify
	Budgets  []budgetJSON  `json:"budgets"`   // calls and total caveats the call is charged against
	Hints    []string      `json:"hints"`     // what a person could do about the refusals
}

type refusalJSON struct {
	Check  string `json:"check"`  // key, mode, chain, attenuation, revoked, policy, caveat, dpop
	Block  int    `json:"block"`  // -1 when no one block is concerned
	Kind   string `json:"kind"`   // the caveat kind, "" when none
	Reason string `json:"reason"` // for a person
}

type budgetJSON struct {
	Block int    `json:"block"` // the block whose caveat sets the budget
	Kind  string `json:"kind"`  // calls or total
	Key   string `json:"key"`   // hex id of that block: tickets made from it share the budget
	Limit any    `json:"limit"` // calls: a number; total: an amount string such as "5USD"
}

func newDecisionJSON(d *verify.Decision, outcome string, hints []string) decisionJSON {
	out := decisionJSON{Decision: outcome, Refusals: []refusalJSON{}, FamilyID: hex.EncodeToString(d.FamilyID),
		BlockIDs: []string{}, Budgets: []budgetJSON{}, Hints: []string{}}
	for _, r := range d.Refusals {
		kind := ""
		if r.Kind != 0 {
			kind = r.Kind.String()
		}
		out.Refusals = append(out.Refusals, refusalJSON{Check: string(r.Check), Block: r.Block, Kind: kind, Reason: r.Reason})
	}
	for _, id := range d.BlockIDs {
		out.BlockIDs = append(out.BlockIDs, id.String())
	}
	for _, b := range d.Budgets {
		bj := budgetJSON{Block: b.Block, Kind: b.Kind.String(), Key: b.Key.String(), Limit: b.Calls}
		if b.Kind == caveat.Total {
			bj.Limit = b.Total.String()
		}
		out.Budgets = append(out.Budgets, bj)
	}
	out.Hints = append(out.Hints, hints...)
	return out
}

// receiptJSON is receipt verify --json's object.
type receiptJSON struct {
	Decision          string   `json:"decision"` // valid or invalid
	Records           int64    `json:"records"`
	Bytes             int64    `json:"bytes"`
	Head              string   `json:"head"`
	Root              string   `json:"root"`
	LastTime          string   `json:"last_time"`
	Problem           string   `json:"problem"` // broken, torn, truncated, forked, checkpoint
	Reason            string   `json:"reason"`
	Offset            int64    `json:"offset"`
	CheckpointRecords int64    `json:"checkpoint_records"`
	Hints             []string `json:"hints"`
}

// printReceiptJSON prints the outcome of receipt verify: the summary s of
// a log that verified, or why it did not (err). An error that is no
// outcome (a log that cannot be read) is returned as it is, unprinted.
func printReceiptJSON(e *env, s *chain.Summary, err error, path, keyPath, cpPath string, cpRecords int64) error {
	if err == nil {
		out := receiptJSON{Decision: "valid", Records: s.Count, Bytes: s.Size, Head: hex.EncodeToString(s.Head[:]),
			Root: hex.EncodeToString(s.Root[:]), Offset: -1, Hints: []string{}}
		if !s.LastTime.IsZero() {
			out.LastTime = s.LastTime.UTC().Format(time.RFC3339Nano)
		}
		out.CheckpointRecords = cpRecords
		return writeJSON(e.stdout, out)
	}
	out := receiptJSON{Decision: "invalid", Reason: oneLine(err.Error()), Offset: -1, Hints: []string{}}
	var be *chain.BreakError
	var ce *chain.CheckpointError
	switch {
	case errors.Is(err, chain.ErrNotLog):
		return receiptError(err, path, keyPath, cpPath) // exit 2: no outcome
	case errors.Is(err, chain.ErrWrongKey):
		out.Problem, out.Offset = "wrong-key", -1
	case errors.As(err, &be):
		out.Problem, out.Records, out.Offset = "broken", be.Index, be.Offset
		if be.Torn {
			out.Problem = "torn"
		}
	case errors.As(err, &ce):
		out.Problem, out.Records, out.CheckpointRecords = "forked", ce.LogSize, ce.CheckpointSize
		if errors.Is(err, chain.ErrTruncated) {
			out.Problem = "truncated"
		}
	case errors.Is(err, chain.ErrCheckpoint):
		out.Problem = "checkpoint"
	default:
		return receiptError(err, path, keyPath, cpPath)
	}
	_, hints := classify(receiptError(err, path, keyPath, cpPath))
	out.Hints = append(out.Hints, hints...)
	if err := writeJSON(e.stdout, out); err != nil {
		return err
	}
	return decidedErr("invalid")
}
