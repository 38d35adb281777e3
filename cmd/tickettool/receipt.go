package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/tickettool/tickettool/chain"
)

const receiptUsage = `
usage: tickettool receipt show [--refused] [--family ID] [--since TIME] [--until TIME] [--json] LOG
       tickettool receipt verify --key PATH [--checkpoint FILE] [--json] LOG
       tickettool receipt checkpoint --key PATH LOG
       tickettool receipt repair --key PATH LOG
       tickettool receipt report --key PATH [--checkpoint FILE] [--ticket TICKET]...
                                 [--root-key PATH] [--store LOCATION] [--out FILE] LOG

A receipt log holds one signed record per decision, each chained to the one
before it. Logs written by tickettool have the origin "tickettool".
Run 'tickettool receipt SUBCOMMAND -h' for details.

Example:
  tickettool receipt verify --key receipts.key receipts.log
`

func runReceipt(e *env, args []string) error {
	if len(args) == 0 {
		return fail(exitUsage, errors.New("receipt needs a subcommand: show, verify, checkpoint, repair or report"), "run 'tickettool receipt -h' for usage")
	}
	switch args[0] {
	case "show":
		return runReceiptShow(e, args[1:])
	case "verify":
		return runReceiptVerify(e, args[1:])
	case "checkpoint":
		return runReceiptCheckpoint(e, args[1:])
	case "repair":
		return runReceiptRepair(e, args[1:])
	case "report":
		return runReceiptReport(e, args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, receiptUsage[1:])
		return nil
	}
	return fail(exitUsage, fmt.Errorf("unknown receipt subcommand %q", args[0]), "use receipt show, verify, checkpoint, repair or report")
}

const receiptVerifyUsage = `
usage: tickettool receipt verify --key PATH [--checkpoint FILE] [--json] LOG

Replays the chain of LOG with the receipt key in PATH (an Ed25519 public
key suffices; an HMAC log needs its secret): every record must decode
strictly, carry a valid signature, its sequence number, the hash of the
record before it and a time no earlier. It names the first broken record
and why. A bare chain cannot show that records were cut from its end:
--checkpoint FILE (from 'receipt checkpoint') also detects truncation and
rollback. Prints the number of records and the head hash. On a terminal
it shows its progress on standard error (records verified, and how many
a second) when the log is large or takes more than a second; the line is
erased when it is done (with --json too: it is for the person watching).
A key under which no record verifies is not the log's: that is said as
such, not as tampering. A file that is no receipt log at all is exit
status 2.

` + jsonRule + `The object's fields: decision ("valid" or "invalid"); records, the records
that verified (for an invalid log: before the first broken one, whose
index this is); bytes, head (SHA-256 of the last record), root (the RFC
6962 Merkle root) and last_time (RFC 3339, "" for an empty log), all zero
or "" when invalid; problem, "" or why the log is invalid: broken, torn
(an incomplete last record: 'receipt repair' drops it), truncated,
forked, checkpoint (the checkpoint does not verify) or wrong-key (no
record verifies under the key: it is not the log's); reason, the error;
offset, the byte offset of the first broken record, or -1;
checkpoint_records, the records --checkpoint commits to (0 without it, or
when it does not verify); hints, an array of strings.

Example:
  tickettool receipt verify --key receipts.key.pub --checkpoint cp.txt receipts.log
`

func runReceiptVerify(e *env, args []string) error {
	fs := newFlags(e, "receipt verify", receiptVerifyUsage)
	keyPath := fs.String("key", "", "`PATH` of the receipt key (public or secret)")
	cpPath := fs.String("checkpoint", "", "also check LOG against the signed checkpoint in `FILE`")
	asJSON := fs.Bool("json", false, "print one JSON object (fields above)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	path, err := oneArg("receipt verify", pos, "LOG")
	if err != nil {
		return err
	}
	k, err := readKey(*keyPath, "--key")
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return logFileErr(path, err)
	}
	var opts chain.VerifyOptions
	if *cpPath != "" {
		if opts.Checkpoint, err = readFile(*cpPath, "checkpoint"); err != nil {
			return err
		}
	}
	pr := newProgress(e.stderr, "receipt verify", fi.Size())
	opts.Progress = pr.update
	s, err := chain.VerifyFile(path, k, receiptOrigin, opts)
	pr.done()
	if *asJSON {
		var cpRecords int64
		if c, cerr := chain.OpenCheckpoint(opts.Checkpoint, k, receiptOrigin); err == nil && cerr == nil {
			cpRecords = c.Size
		}
		return printReceiptJSON(e, s, err, path, *keyPath, *cpPath, cpRecords)
	}
	if err != nil {
		return receiptError(err, path, *keyPath, *cpPath)
	}
	fmt.Fprintf(e.stdout, "ok: %d records, head %x\n", s.Count, s.Head)
	return nil
}

const receiptCheckpointUsage = `
usage: tickettool receipt checkpoint --key PATH LOG

Verifies LOG and prints a checkpoint of it as it is now (origin, record
count, Merkle root and chain head) signed with the secret receipt key in
PATH. Keep it: 'receipt verify --checkpoint' then detects truncation and
rollback of the log.

Example:
  tickettool receipt checkpoint --key receipts.key receipts.log > cp.txt
`

func runReceiptCheckpoint(e *env, args []string) error {
	fs := newFlags(e, "receipt checkpoint", receiptCheckpointUsage)
	keyPath := fs.String("key", "", "`PATH` of the secret receipt key")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	path, err := oneArg("receipt checkpoint", pos, "LOG")
	if err != nil {
		return err
	}
	k, err := readSigningKey(*keyPath, "--key", "signing a checkpoint")
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return logFileErr(path, err)
	}
	cp, err := chain.MakeCheckpoint(path, k, receiptOrigin)
	if err != nil {
		return receiptError(err, path, *keyPath, "")
	}
	e.stdout.Write(cp)
	return nil
}

const receiptRepairUsage = `
usage: tickettool receipt repair --key PATH LOG

Drops a torn tail (an incomplete last record, left by a crash mid-append)
from LOG, after replaying every complete record with the key, and prints
exactly what it dropped. A tail is torn only when no complete record
follows the incomplete one: a record cut short or changed with a complete
record anywhere after it is damage. A log whose complete records do not
verify, or that is damaged, is not touched: repair names the damaged
record (index and byte offset) and exits with status 1, since that needs
a person. PATH may be the public key.

Example:
  tickettool receipt repair --key receipts.key.pub receipts.log
`

func runReceiptRepair(e *env, args []string) error {
	fs := newFlags(e, "receipt repair", receiptRepairUsage)
	keyPath := fs.String("key", "", "`PATH` of the receipt key (public or secret)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	path, err := oneArg("receipt repair", pos, "LOG")
	if err != nil {
		return err
	}
	k, err := readKey(*keyPath, "--key")
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return logFileErr(path, err)
	}
	torn, err := chain.Repair(path, k, receiptOrigin)
	var be *chain.BreakError
	if errors.As(err, &be) && !be.NotLog {
		return fail(exitRefused, err,
			fmt.Sprintf("%s was not changed: only an incomplete last record with no complete record after it is dropped, and this log breaks at record %d (offset %d)", path, be.Index, be.Offset),
			fmt.Sprintf("record %d and every record after it cannot be trusted: restore the log from a copy, or investigate", be.Index))
	}
	if err != nil {
		return receiptError(err, path, *keyPath, "")
	}
	if torn.Bytes == 0 {
		fmt.Fprintln(e.stdout, "ok: nothing to repair")
		return nil
	}
	fmt.Fprintf(e.stdout, "dropped %d bytes from offset %d (an incomplete record)\n", torn.Bytes, torn.Offset)
	return nil
}

// receiptError adds an exit status and hints to a failed log check of
// the log at path with the key in keyPath (and the checkpoint in cpPath):
// 2 for a file that is no log at all, 1 for everything else.
func receiptError(err error, path, keyPath, cpPath string) error {
	var be *chain.BreakError
	var ce *chain.CheckpointError
	var ke *chain.KeyError
	switch {
	case errors.As(err, &be) && be.NotLog:
		return fail(exitUsage, fmt.Errorf("%s is not a receipt log: %s", path, be.Reason),
			"a receipt log is the file 'tickettool verify --receipts' or 'tickettool mcp --receipts' writes")
	case errors.As(err, &be) && be.Torn:
		return fail(exitRefused, err, fmt.Sprintf("the log ends in an incomplete record at offset %d (a crash mid-append, or a cut); %d complete records precede it; 'tickettool receipt repair' drops it and says exactly what it dropped", be.Offset, be.Index))
	case errors.As(err, &be):
		return fail(exitRefused, err, fmt.Sprintf("record %d and every record after it cannot be trusted", be.Index))
	case errors.As(err, &ke):
		return fail(exitRefused, err, wrongKeyHint(ke, keyPath, "--key"))
	case errors.As(err, &ce):
		return fail(exitRefused, err, fmt.Sprintf("the checkpoint %s commits to %d records: the log was cut or rewritten after it", cpPath, ce.CheckpointSize))
	case errors.Is(err, chain.ErrCheckpoint):
		return fail(exitRefused, err, "the checkpoint is not signed by this key for origin \""+receiptOrigin+"\"")
	case errors.Is(err, chain.ErrWrongAlg):
		return fail(exitRefused, err, "the log was signed with a key of the other algorithm")
	}
	return err
}

// wrongKeyHint says what to do about a key that is not the log's.
func wrongKeyHint(ke *chain.KeyError, keyPath, flag string) string {
	return fmt.Sprintf("%s %s holds key %s and the log was written with another %s key: pass the receipt key the log was started with",
		flag, keyPath, ke.Key, ke.LogAlg)
}

// openReceiptsError is the error of a receipt log that could not be
// opened for appending with the key in keyPath (--receipts with
// --receipt-key): exit status 1, since no decision may go unrecorded.
func openReceiptsError(err error, path, keyPath string) error {
	var ke *chain.KeyError
	var be *chain.BreakError
	switch {
	case errors.As(err, &ke):
		return fail(exitRefused, err, wrongKeyHint(ke, keyPath, "--receipt-key"),
			"or start a new log for this key: pass another --receipts LOG")
	case errors.As(err, &be) && be.NotLog:
		return fail(exitUsage, fmt.Errorf("%s is not a receipt log: %s", path, be.Reason),
			"--receipts names a receipt log, or a new file to start one in")
	}
	return fail(exitRefused, err, "check the log with 'tickettool receipt verify --key "+keyPath+" "+path+"'")
}

// logFileErr is the error of a receipt log that cannot be read at all:
// exit status 2, naming the path and the system's reason once.
func logFileErr(path string, err error) error {
	return usageErr("read receipt log %s: %v", path, osReason(err))
}
