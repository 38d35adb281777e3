package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// The seams of progress, replaced by tests: whether a stream is a
// terminal, and the clock.
var (
	isTerminal  = fileIsTerminal
	progressNow = time.Now
)

// fileIsTerminal reports whether w is a file that is a character device,
// as a terminal is (the standard library cannot tell a terminal from
// another character device such as /dev/null, where a progress line does
// no harm).
func fileIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress keeps one line on a terminal up to date with how far a long
// job is: rewritten in place (CR) at most every progressEvery, from the
// start for a job of at least progressLargeBytes and otherwise once it has
// run progressAfter. A nil *progress shows nothing: newProgress returns
// one when w is no terminal.
type progress struct {
	w     io.Writer
	what  string // the command, at the start of the line
	total int64  // bytes the job reads, when known (else 0)
	large bool   // show from the start
	start time.Time
	last  time.Time // when the line was last written; zero before
	width int       // length of the line last written
}

func newProgress(w io.Writer, what string, total int64) *progress {
	if !isTerminal(w) {
		return nil
	}
	return &progress{w: w, what: what, total: total, large: total >= progressLargeBytes, start: progressNow()}
}

// update reports that records records and bytes bytes are done.
func (p *progress) update(records, bytes int64) {
	if p == nil {
		return
	}
	now := progressNow()
	elapsed := now.Sub(p.start)
	if !p.large && elapsed < progressAfter || !p.last.IsZero() && now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	line := fmt.Sprintf("%s: %d records", p.what, records)
	if p.total > 0 {
		line += fmt.Sprintf(", %d%%", min(100, bytes*100/p.total))
	}
	if elapsed >= time.Millisecond {
		line += fmt.Sprintf(", %.0f records/s", float64(records)/elapsed.Seconds())
	}
	pad := max(0, p.width-len(line))
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.width = len(line)
}

// done erases the line, if one was written.
func (p *progress) done() {
	if p == nil || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	p.width = 0
}
