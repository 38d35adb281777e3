package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	reportpkg "github.com/tickettool/tickettool/report"
	"github.com/tickettool/tickettool/verify"
)

const receiptReportUsage = `
usage: tickettool receipt report --key PATH [--checkpoint FILE] [--ticket TICKET]...
                                 [--root-key PATH] [--store LOCATION] [--out FILE] LOG

Writes one self-contained HTML page about LOG for a person to read: at
the top the verdict of the same verification 'receipt verify' runs
(records verified, under which key, against which checkpoint, or the
first break and where), then per ticket family the delegation tree with
each block's scope and holder, the budgets as bars (captured and still
reserved against the limit), a timeline of decisions, the refusals
grouped by block and caveat, the approvals and the most used tools,
paths and hosts. A broken log shows the records before the break and
the break; nothing after it.

The page fetches nothing (a Content-Security-Policy forbids it) and runs
no script; every string a record holds is escaped. Its size does not
grow with the log past its families: it lists the last records only.

--ticket TICKET (text, - or @PATH; repeatable) supplies the scope of
blocks the log has no minting or delegation receipt for; it is marked
verified only when it verifies under --root-key. --store LOCATION adds
what the store counts for those tickets' budgets (with --root-key).

Writes the page to FILE (default LOG.html; a new file is made 0600, as
the log is) and prints its path. Exit status 1 when the log does not
verify (the page is still written).

Example:
  tickettool receipt report --key receipts.key.pub --checkpoint cp.txt receipts.log
`

func runReceiptReport(e *env, args []string) error {
	fs := newFlags(e, "receipt report", receiptReportUsage)
	keyPath := fs.String("key", "", "`PATH` of the receipt key (public or secret)")
	cpPath := fs.String("checkpoint", "", "also check LOG against the signed checkpoint in `FILE`")
	var tickets stringList
	fs.Var(&tickets, "ticket", "a `TICKET` whose blocks the page shows (repeatable)")
	rootPath := fs.String("root-key", "", "`PATH` of the root key the tickets verify under")
	location := fs.String("store", "", "the store's `LOCATION` for the tickets' budgets")
	out := fs.String("out", "", "write the page to `FILE` (default LOG.html)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	path, err := oneArg("receipt report", pos, "LOG")
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
	opts := reportpkg.Options{Key: k, Origin: receiptOrigin, Now: e.now}
	if *cpPath != "" {
		if opts.Checkpoint, err = readFile(*cpPath, "checkpoint"); err != nil {
			return err
		}
		opts.CheckpointName = filepath.Base(*cpPath)
	}
	if opts.Tickets, err = e.reportTickets(tickets, *rootPath, *location); err != nil {
		return err
	}
	rep, err := reportpkg.Build(path, opts)
	if err != nil {
		return receiptError(err, path, *keyPath, *cpPath)
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		return err
	}
	dest := *out
	if dest == "" {
		dest = path + ".html"
	}
	if err := os.WriteFile(dest, buf.Bytes(), 0o600); err != nil { // as private as the log (0600)
		return fail(exitUsage, fmt.Errorf("write report %s: %v", dest, osReason(err)))
	}
	fmt.Fprintln(e.stdout, dest)
	if v := rep.Verdict; !v.OK {
		return fail(exitRefused, errors.New("the log does not verify: "+oneLine(v.Reason)),
			fmt.Sprintf("%s shows the %d records before the failure and the failure; nothing after it", dest, v.Records))
	}
	return nil
}

// reportTickets parses the tickets given with --ticket and verifies each
// under the root key in rootPath (when given), and reads what the store
// at location counts for their budgets (when given).
func (e *env) reportTickets(args []string, rootPath, location string) ([]reportpkg.Ticket, error) {
	if location != "" && rootPath == "" {
		return nil, usageErr("--store needs --root-key: budgets are counted under the ids of verified blocks")
	}
	var out []reportpkg.Ticket
	for _, arg := range args {
		_, t, err := e.ticketArg(arg)
		if err != nil {
			return nil, err
		}
		rt := reportpkg.Ticket{Ticket: t}
		if rootPath != "" {
			_, keys, err := keysOf(rootPath)
			if err != nil {
				return nil, err
			}
			d, err := verify.Validate(t, keys, e.now, nil)
			if err != nil {
				return nil, err
			}
			rt.Decision = &d
			for _, r := range d.Refusals {
				if r.Check != verify.CheckCaveat || len(d.BlockIDs) == 0 {
					rt.Problem, rt.Decision = oneLine(r.String()), nil
					break
				}
			}
		}
		out = append(out, rt)
	}
	if location == "" {
		return out, nil
	}
	ctx, cancel := storeContext()
	defer cancel()
	st, name, err := openStore(ctx, location)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for i := range out {
		d := out[i].Decision
		if d == nil || len(d.BlockIDs) == 0 {
			continue
		}
		if out[i].Usage, err = st.Spent(ctx, d.BlockIDs[0], d.Budgets); err != nil {
			return nil, storeFailed(name, err, "")
		}
		if out[i].Held, err = heldOf(ctx, st, d.BlockIDs[0], d.Budgets, e.now); err != nil {
			return nil, storeFailed(name, err, "")
		}
	}
	return out, nil
}
