package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	guardpkg "github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

const opsUsage = `
usage: tickettool ops [--store LOCATION] [--key PATH] [--json] [--now TIME]
                      [--receipts LOG --receipt-key PATH] TICKET|FAMILY

Lists the operations of a ticket family the store keeps: every call made
under an operation key (tools/call _meta io.github.tickettool/operation,
the HTTP Idempotency-Key header, verify --operation), oldest first, one
line each:

  KEY tool TOOL STATE since TIME request ID [receipt SEQ]

STATE is where the operation stands as of --now:
  reserved until T        running: its budgets are reserved, its outcome
                          not yet known
  unknown outcome since T its guard never learnt the outcome (it stopped,
                          or the answer was lost); the hold ended at T, so
                          it counts as captured, and it is never run again
  captured                it ran; its result is kept for repeats
  captured, not kept      it ran; its result was over the size limit
  replayed N times        it ran, and N repeats got its result back
  (last at T)             ("replayed once (at T)" for one)
  released                it did not run (refused, or the server said it
                          never ran): the key is free again
  waiting for approval    refused for want of an approval (see approve):
                          the approved retry under the key runs

With --receipts, the log is verified under --receipt-key and each line
ends with the sequence number of the operation's latest receipt (allowed,
refused, replayed, captured or released); for a TICKET it also lists,
after them, the family's allowed calls made without a key, from the log,
with "-" for the key:

  - tool TOOL STATE since TIME request ID receipt SEQ

STATE is captured, released, or "no settlement recorded" (still
reserved, or its outcome never came: it counts as captured once its hold
ended; the command line's verify captures at once, and records none).

FAMILY is block 0's id (64 hex digits, as verify --ids prints block 0);
a TICKET (its text, - or @PATH) needs --key, the root key, to verify it
and find that id. With --json, an array of objects with the fields key,
tool, state (waiting, reserved, unknown, captured, released), kept, replays,
started, hold_until, finished, last_replay (RFC 3339, "" when none) and
request. Keys and results are forgotten when the family expires (block
0's until plus 24 hours). With --receipts, the field receipt (the
sequence number, -1 when the log holds none); a call without a key has
key "" and state captured, released or unsettled.

` + storeUsage + `
Example:
  tickettool ops --key root.key --store ~/tickets/store.db "$TICKET"
`

func runOps(e *env, args []string) error {
	fs := newFlags(e, "ops", opsUsage)
	location := storeFlag(fs)
	keyPath := fs.String("key", "", "`PATH` of the root key, to verify a TICKET")
	asJSON := fs.Bool("json", false, "print a JSON array")
	nowFlag := fs.String("now", "", "show the states at `TIME` (RFC 3339 or unix seconds)")
	receipts := fs.String("receipts", "", "receipt `LOG` to find each operation's latest receipt in")
	receiptKey := fs.String("receipt-key", "", "`PATH` of the key that verifies the receipt log")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	arg, err := oneArg("ops", pos, "TICKET|FAMILY")
	if err != nil {
		return err
	}
	if e.now, err = e.nowFlag(*nowFlag); err != nil {
		return err
	}
	if (*receipts == "") != (*receiptKey == "") {
		return usageErr("--receipts and --receipt-key go together")
	}
	var family16 []byte // the receipts' family id, known from a ticket
	family, err := token.ParseBlockID(arg)
	if err != nil {
		if *keyPath == "" {
			return fail(exitUsage, errors.New("ops needs --key PATH to read a ticket, or block 0's id (64 hex digits)"),
				"operations are kept under the id of the verified chain's block 0")
		}
		d, err := e.spentDecision(*keyPath, arg)
		if err != nil {
			return err
		}
		family, family16 = d.BlockIDs[0], d.FamilyID
	}
	ctx, cancel := storeContext()
	defer cancel()
	st, name, err := openStore(ctx, *location)
	if err != nil {
		return err
	}
	defer st.Close()
	ost, ok := st.(guardpkg.OperationStore)
	if !ok {
		return fmt.Errorf("store %s keeps no operations", name)
	}
	ops, err := ost.Operations(ctx, family, e.now)
	if err != nil {
		return storeFailed(name, err, "")
	}
	var seqs []int64
	var plain []plainCall
	if *receipts != "" {
		if seqs, plain, err = opReceipts(*receipts, *receiptKey, ops, family16); err != nil {
			return err
		}
	}
	if *asJSON {
		out := make([]opJSON, 0, len(ops)+len(plain))
		for i := range ops {
			out = append(out, newOpJSON(&ops[i], e.now))
			if seqs != nil {
				out[i].Receipt = &seqs[i]
			}
		}
		for _, c := range plain {
			state := c.state
			if state == "" {
				state = "unsettled"
			}
			out = append(out, opJSON{Tool: c.tool, State: state, Started: stamp(c.at), Request: c.request, Receipt: &c.seq})
		}
		return writeJSON(e.stdout, out)
	}
	for i := range ops {
		o := &ops[i]
		line := fmt.Sprintf("%s tool %s %s since %s request %s", o.Key, oneLine(o.Tool), opState(o, e.now),
			stamp(o.Started), o.Request)
		if seqs != nil && seqs[i] >= 0 {
			line += fmt.Sprintf(" receipt %d", seqs[i])
		}
		fmt.Fprintln(e.stdout, line)
	}
	for _, c := range plain {
		state := c.state
		if state == "" {
			state = "no settlement recorded"
		}
		fmt.Fprintf(e.stdout, "- tool %s %s since %s request %s receipt %d\n", oneLine(c.tool), state, stamp(c.at), c.request, c.seq)
	}
	if len(ops) == 0 && len(plain) == 0 {
		fmt.Fprintln(e.stderr, "tickettool: hint: the store keeps no operation of this family: no call carried an operation key, or the family expired")
	}
	return nil
}

// opState words where o stands at now.
func opState(o *guardpkg.Operation, now time.Time) string {
	switch {
	case o.State == guardpkg.OperationReleased:
		return "released"
	case o.State == guardpkg.OperationWaiting:
		return "waiting for approval"
	case o.State == guardpkg.OperationRunning && !now.After(o.HoldUntil):
		return "reserved until " + stamp(o.HoldUntil)
	case o.State == guardpkg.OperationRunning:
		return "unknown outcome since " + stamp(o.HoldUntil)
	case o.Replays == 1:
		return "replayed once (at " + stamp(o.Replay) + ")"
	case o.Replays > 1:
		return fmt.Sprintf("replayed %d times (last at %s)", o.Replays, stamp(o.Replay))
	case !o.Kept:
		return "captured, not kept"
	}
	return "captured"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

type opJSON struct {
	Key        string `json:"key"`
	Tool       string `json:"tool"`
	State      string `json:"state"`
	Kept       bool   `json:"kept"`
	Replays    uint64 `json:"replays"`
	Started    string `json:"started"`
	HoldUntil  string `json:"hold_until"`
	Finished   string `json:"finished"`
	LastReplay string `json:"last_replay"`
	Request    string `json:"request"`
	Receipt    *int64 `json:"receipt,omitempty"`
}

func newOpJSON(o *guardpkg.Operation, now time.Time) opJSON {
	state := strings.SplitN(opState(o, now), " ", 2)[0]
	if state == "replayed" {
		state = "captured"
	}
	return opJSON{Key: o.Key, Tool: o.Tool, State: strings.TrimSuffix(state, ","), Kept: o.Kept, Replays: o.Replays,
		Started: stamp(o.Started), HoldUntil: stamp(o.HoldUntil), Finished: stamp(o.Finished), LastReplay: stamp(o.Replay),
		Request: o.Request.String()}
}
