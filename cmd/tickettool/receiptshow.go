package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tickettool/tickettool/chain"
)

const receiptShowUsage = `
usage: tickettool receipt show [--refused] [--family ID] [--since TIME] [--until TIME] [--json] LOG

Prints one line per record of LOG, oldest first (with --json, one JSON
object per line). It decodes every record strictly but checks no
signature or link: use 'receipt verify' for that. It stops, exit status
1, at the first record that does not decode; a file that does not start
with a record is no receipt log (exit status 2).

Filters (all given must hold): --refused shows refusals only; --family ID
the records of one ticket family, ID its family id in hex or the first 8
or more hex digits of it (as 'receipt report' and 'inspect' show it);
--since TIME and --until TIME the records from TIME on and before TIME
(RFC 3339 or unix seconds).

Example:
  tickettool receipt show --refused --since 2026-06-01T10:00:00Z receipts.log
`

// showFilter selects the records receipt show prints.
type showFilter struct {
	refused      bool
	family       []byte // a prefix of the family id; nil: any
	since, until time.Time
}

func (f *showFilter) keep(r *chain.Record) bool {
	switch {
	case f.refused && r.Kind != chain.KindRefused:
		return false
	case f.family != nil && !bytes.HasPrefix(r.FamilyID, f.family):
		return false
	case !f.since.IsZero() && r.Time.Before(f.since):
		return false
	case !f.until.IsZero() && !r.Time.Before(f.until):
		return false
	}
	return true
}

// parseFamily reads --family: an even number of hex digits, at least 8.
func parseFamily(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.ToLower(s))
	if err != nil || len(b) < 4 || len(b) > chain.MaxIDBytes {
		return nil, usageErr("--family %s: want a family id in hex, or its first 8 or more hex digits (an even number)", quoteArg(s))
	}
	return b, nil
}

func runReceiptShow(e *env, args []string) error {
	fs := newFlags(e, "receipt show", receiptShowUsage)
	var f showFilter
	fs.BoolVar(&f.refused, "refused", false, "show refused decisions only")
	family := fs.String("family", "", "show the records of the family whose id starts with the hex `ID` only")
	since := fs.String("since", "", "show records from `TIME` on (RFC 3339 or unix seconds)")
	until := fs.String("until", "", "show records before `TIME` (RFC 3339 or unix seconds)")
	asJSON := fs.Bool("json", false, "one JSON object per line")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	path, err := oneArg("receipt show", pos, "LOG")
	if err != nil {
		return err
	}
	if *family != "" {
		if f.family, err = parseFamily(*family); err != nil {
			return err
		}
	}
	if *since != "" {
		if f.since, err = parseTime("--since", *since); err != nil {
			return err
		}
	}
	if *until != "" {
		if f.until, err = parseTime("--until", *until); err != nil {
			return err
		}
	}
	fh, err := os.Open(path)
	if err != nil {
		return logFileErr(path, err)
	}
	defer fh.Close()
	for ent, err := range chain.Scan(fh) {
		if err != nil {
			return receiptError(err, path, "", "")
		}
		if !f.keep(&ent.Record) {
			continue
		}
		if *asJSON {
			b, err := ent.Record.MarshalJSON()
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s\n", b)
		} else {
			fmt.Fprintln(e.stdout, ent.Record.String())
		}
	}
	return nil
}
