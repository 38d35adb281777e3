package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/escape"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// approvedBy returns the key ids of the approvers of the approval m whose
// discharge among with is bound to m's binding, verifies under that
// approver's key and has not expired at now: the approvals the call
// already has, as approve can tell them without a root key. Two
// discharges by one key id count for nothing, as a verifier counts them
// (spec/FORMAT.md §7 step 6a).
func approvedBy(m token.UnverifiedApproval, with []*token.Discharge, now time.Time) []string {
	var out []string
	for _, a := range m.Approver.Set() {
		n, ok := 0, false
		for _, d := range with {
			if d.UnverifiedBinding() != m.Binding || d.UnverifiedKeyID() != a.KeyID {
				continue
			}
			n++
			pub, err := key.NewEd25519Public(a.KeyID, a.Key[:])
			ok = err == nil && d.Verify(pub) == nil && unexpired(d, now)
		}
		if n == 1 && ok {
			out = append(out, a.KeyID)
		}
	}
	return out
}

// unexpired reports whether d's until is not before now.
func unexpired(d *token.Discharge, now time.Time) bool {
	for _, c := range d.UnverifiedCaveats() {
		if c.Kind == caveat.Until {
			return c.Evaluate(&caveat.Request{}, now, 0) == nil
		}
	}
	return false
}

// tellCount shows how many approvals the call has (the discharges given
// with --with) and needs, and what this discharge adds: "2 of 3: approved
// by alice; with yours (bob) 2: enough".
func tellCount(w io.Writer, m token.UnverifiedApproval, me string, with []*token.Discharge, now time.Time) {
	a := m.Approver
	need, set := a.Threshold(), a.Set()
	if a.Members == nil && len(with) == 0 {
		return
	}
	have := approvedBy(m, with, now)
	var waiting []string
	for _, x := range set {
		if !slices.Contains(have, x.KeyID) {
			waiting = append(waiting, escape.ASCII(x.KeyID))
		}
	}
	for i := range have {
		have[i] = escape.ASCII(have[i])
	}
	s := fmt.Sprintf("%d of %d needed", need, len(set))
	if len(have) > 0 {
		s += "; approved by " + strings.Join(have, ", ")
	} else {
		s += "; approved by none yet"
	}
	after := len(have)
	if !slices.Contains(have, escape.ASCII(me)) {
		after++
	}
	switch {
	case len(have) >= need:
		s += "; already enough without yours"
	case after >= need:
		s += fmt.Sprintf("; with yours %d: enough", after)
	default:
		s += fmt.Sprintf("; with yours %d: still waiting for %d more of %s", after, need-after, strings.Join(without(waiting, escape.ASCII(me)), ", "))
	}
	fmt.Fprintf(w, "  approvals   %s\n", s)
}

// without returns ids without id.
func without(ids []string, id string) []string {
	return slices.DeleteFunc(slices.Clone(ids), func(x string) bool { return x == id })
}
