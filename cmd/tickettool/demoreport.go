package main

import (
	"fmt"
	"os"
)

// report is the demo's last part: the receipt log as one HTML page. The
// page is the one file the demo leaves, beside its temporary directory
// (in $TMPDIR, never under HOME), so that it can be opened afterwards.
func (d *demo) report(subTicket string) error {
	p := d.path
	d.say("\n== 9. A page to look at: tickettool receipt report")
	d.say("The same verification as 'receipt verify', then per family the delegation tree, the")
	d.say("budgets (captured and still reserved), a timeline, the refusals and the approvals.")
	f, err := os.CreateTemp("", "tickettool-demo-report-*.html")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	out := f.Name()
	f.Close()
	if _, err := d.tt(0, "receipt", "report", "--key", p("receipts.key.pub"), "--checkpoint", p("checkpoint.txt"),
		"--ticket", subTicket, "--root-key", p("root.key.pub"), "--store", p("store.db"), "--out", out,
		p("receipts.log")); err != nil {
		os.Remove(out)
		return err
	}
	d.say("Open it in a browser: %s", out)
	return nil
}
