package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// How a call finds its discharges in Config.DischargeDir. At most
// maxDischargeFiles *.dis files are read per call, so stale files must not
// hide a fresh discharge: the files the guard announced for this very call
// (dischargeNames) are read first, expired discharges are set aside, a
// file whose discharges have all expired is removed, and a refusal says
// how many files were skipped and why.

// pooled is one discharge read from the directory, not expired.
type pooled struct {
	text      string
	d         *token.Discharge
	announced bool  // read from a file the guard named for this call
	until     int64 // its until caveat
}

// skipCounts counts the *.dis files of a call's reading that gave no
// discharge: all expired (removed: how many of those are gone), unreadable
// (not a regular file, too long, or holding a line that is not a
// discharge), and not read, past maxDischargeFiles.
type skipCounts struct {
	expired, removed, unreadable, overLimit int
}

// String says what was skipped, for the refusal; "" when nothing was.
func (s skipCounts) String() string {
	var parts []string
	if s.expired > 0 {
		parts = append(parts, fmt.Sprintf("%d expired (%d removed)", s.expired, s.removed))
	}
	if s.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable (not a regular file, too long or malformed; see the guard's log)", s.unreadable))
	}
	if s.overLimit > 0 {
		parts = append(parts, fmt.Sprintf("%d not read (over the limit of %d files per call)", s.overLimit, maxDischargeFiles))
	}
	if len(parts) == 0 {
		return ""
	}
	return "discharge files skipped: " + strings.Join(parts, ", ")
}

// poolDischarges picks, for each approval of st, at most one discharge
// whose binding is the approval's (spec/FORMAT.md §7: a pool is filtered
// by binding), among those that would pass step 6a for req at now but
// for their budgets, which only the store knows: first from the files
// announced for this call, then the latest until, then by text. So a
// discharge that fails another caveat (tools, nbf) shadows no usable one.
func (p *Proxy) poolDischarges(st *ticketState, req *caveat.Request, now time.Time) ([]string, skipCounts) {
	var names []string
	if req.Args != nil {
		for _, a := range st.approvals {
			name := argsName(token.BindingCode(a.Binding), req.Tool, req.Args)
			names = append(names, dischargeNames(name)...)
			for i := range a.Approver.Members {
				names = append(names, dischargeNames(approverName(name, i))...)
			}
		}
	}
	pool, sk := p.readPool(names, now)
	slices.SortFunc(pool, func(a, b *pooled) int {
		switch {
		case a.announced != b.announced:
			if a.announced {
				return -1
			}
			return 1
		case a.until != b.until:
			if a.until > b.until {
				return -1
			}
			return 1
		}
		return strings.Compare(a.text, b.text)
	})
	var out []string
	for _, a := range st.approvals {
		// One per approver: a threshold approval counts distinct
		// approvers, and step 6a refuses two by one key id.
		for _, m := range a.Approver.Set() {
			for _, c := range pool {
				if c.d.UnverifiedBinding() == a.Binding && (a.Approver.Members == nil || c.d.UnverifiedKeyID() == m.KeyID) &&
					p.dischargeFits(c.d, req, now) {
					out = append(out, c.text)
					break
				}
			}
		}
	}
	if len(out) > verify.MaxDischarges {
		out = out[:verify.MaxDischarges]
	}
	return out, sk
}

// approverName names the files of the approver with index i (from 0) of a
// threshold approval, for the refused call named name (argsName): each
// approver's discharge lands beside the others', under the call's one
// record (its arguments, NAME.json).
func approverName(name string, i int) string {
	return name + "-a" + strconv.Itoa(i+1)
}

// dischargeFits reports whether d passes what step 6a checks of its
// caveats (verify's checkDischarge) for req at now, budgets and holder
// aside: until and nbf with the guard's skew, a lifetime of at most
// verify.MaxDischargeLifetime, every other caveat evaluated on req.
func (p *Proxy) dischargeFits(d *token.Discharge, req *caveat.Request, now time.Time) bool {
	skew := p.cfg.Options.Skew
	for _, c := range d.UnverifiedCaveats() {
		switch c.Kind {
		case caveat.Holder:
		case caveat.Until:
			if c.Evaluate(req, now, skew) != nil || time.Unix(c.Time, 0).Sub(now) > verify.MaxDischargeLifetime {
				return false
			}
		default:
			if c.Evaluate(req, now, skew) != nil {
				return false
			}
		}
	}
	return true
}

// expired reports whether d's until has passed at now, with the guard's
// skew: no call of this guard can use it any more.
func (p *Proxy) expired(d *token.Discharge, now time.Time) (int64, bool) {
	for _, c := range d.UnverifiedCaveats() {
		if c.Kind == caveat.Until {
			return c.Time, c.Evaluate(nil, now, p.cfg.Options.Skew) != nil
		}
	}
	return 0, false
}

// readPool reads the discharges of Config.DischargeDir that have not
// expired: first the files named first (those that exist), then the
// other *.dis files in name order, at most maxDischargeFiles in all.
func (p *Proxy) readPool(first []string, now time.Time) ([]*pooled, skipCounts) {
	byText := map[string]*pooled{}
	var sk skipCounts
	files := 0
	read := map[string]bool{}
	readFile := func(name string, announced bool) {
		files++
		read[name] = true
		path := filepath.Join(p.cfg.DischargeDir, name)
		found := map[string]*token.Discharge{}
		r := p.readDischargeFile(path, found)
		if r.info == nil || r.malformed > 0 {
			sk.unreadable++
		}
		live := 0
		for text, d := range found {
			until, gone := p.expired(d, now)
			if gone {
				continue
			}
			live++
			if e := byText[text]; e != nil {
				e.announced = e.announced || announced
			} else {
				byText[text] = &pooled{text: text, d: d, announced: announced, until: until}
			}
		}
		if r.info != nil && r.malformed == 0 && len(found) > 0 && live == 0 {
			sk.expired++
			if p.removeExpired(path, r.info) {
				sk.removed++
			}
		}
	}
	for _, name := range first {
		if _, err := os.Lstat(filepath.Join(p.cfg.DischargeDir, name)); err == nil && !read[name] {
			readFile(name, true)
		}
	}
	entries, err := os.ReadDir(p.cfg.DischargeDir)
	if err != nil {
		p.log.Printf("discharge directory: %v", err)
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case !strings.HasSuffix(name, DischargeSuffix) || read[name]:
		case !e.Type().IsRegular():
			p.log.Printf("discharge file %s: skipped: not a regular file", name)
			sk.unreadable++
		case files >= maxDischargeFiles:
			sk.overLimit++
		default:
			readFile(name, false)
		}
	}
	if sk.overLimit > 0 {
		p.log.Printf("discharge directory: more than %d %s files: %d not read", maxDischargeFiles, DischargeSuffix, sk.overLimit)
	}
	pool := make([]*pooled, 0, len(byText))
	for _, e := range byText {
		pool = append(pool, e)
	}
	return pool, sk
}

// removeExpired removes the discharge file at path, all of whose
// discharges have expired, when the name still holds the regular file
// that was read (info): never a link, nothing swapped in since, nothing
// outside the directory.
func (p *Proxy) removeExpired(path string, info fs.FileInfo) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, info) {
		return false
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		p.log.Printf("discharge directory: %v", err)
		return false
	}
	p.log.Printf("discharge file %s: removed: every discharge in it has expired", filepath.Base(path))
	return true
}
