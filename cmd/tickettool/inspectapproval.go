package main

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

// approvalJSON is one approval caveat of a ticket, in inspect: its
// block, approver, and the code people compare.
//
// A threshold approval has need, the threshold, and approvers, each with
// key_id and key_short, instead of key_id and key_short.
type approvalJSON struct {
	Block     int           `json:"block"`
	KeyID     string        `json:"key_id,omitempty"`
	KeyShort  string        `json:"key_short,omitempty"` // the first 12 characters of the key's unpadded base64url
	Need      int           `json:"need,omitempty"`
	Approvers []approverRef `json:"approvers,omitempty"`
	Location  string        `json:"location"`
	Code      string        `json:"code"`
}

// approverRef is one approver of a threshold approval, in inspect.
type approverRef struct {
	KeyID    string `json:"key_id"`
	KeyShort string `json:"key_short"`
}

// dischargeJSON is one --discharge given to inspect: the approval it
// discharges (block −1 for none) and until when. Nothing is verified.
type dischargeJSON struct {
	Index   int          `json:"index"`
	ID      string       `json:"id"` // the discharge id, hex
	KeyID   string       `json:"key_id"`
	Block   int          `json:"block"`
	Until   string       `json:"until"`
	Expired bool         `json:"expired"`
	Caveats []caveatJSON `json:"caveats"`

	until time.Time
}

// inspectApprovals lists t's approval caveats and, for each discharge,
// the approval it matches by binding, as a verifier's step 6a would
// select it (without checking any signature).
func inspectApprovals(t *token.Ticket, ds []*token.Discharge, now time.Time) ([]approvalJSON, []dischargeJSON) {
	aps := t.UnverifiedApprovals()
	out := make([]approvalJSON, 0, len(aps))
	for _, a := range aps {
		aj := approvalJSON{Block: a.Block, Need: a.Approver.Need, Location: a.Approver.Location, Code: token.BindingCode(a.Binding)}
		if a.Approver.Members == nil {
			aj.KeyID, aj.KeyShort = a.Approver.KeyID, shortKey(a.Approver.Key)
		}
		for _, m := range a.Approver.Members {
			aj.Approvers = append(aj.Approvers, approverRef{KeyID: m.KeyID, KeyShort: shortKey(m.Key)})
		}
		out = append(out, aj)
	}
	dis := make([]dischargeJSON, 0, len(ds))
	for i, d := range ds {
		id := d.ID()
		dj := dischargeJSON{Index: i, ID: hex.EncodeToString(id[:]), KeyID: d.UnverifiedKeyID(), Block: -1,
			Caveats: caveatsJSON(d.UnverifiedCaveats())}
		for _, a := range aps {
			if a.Binding == d.UnverifiedBinding() {
				dj.Block = a.Block
			}
		}
		for _, c := range d.UnverifiedCaveats() {
			if c.Kind == caveat.Until {
				dj.until = time.Unix(c.Time, 0).UTC()
				dj.Until, dj.Expired = dj.until.Format(time.RFC3339), now.Unix() >= c.Time
			}
		}
		dis = append(dis, dj)
	}
	return out, dis
}

// printApprovals prints the approvals and discharges of an inspection.
func printApprovals(e *env, r inspectResult) {
	w := e.stdout
	for _, a := range r.Approvals {
		loc := ""
		if a.Location != "" {
			loc = " at " + a.Location
		}
		if a.Approvers == nil {
			fmt.Fprintf(w, "approval   block %d: from %s (key %s…)%s, code %s\n", a.Block, a.KeyID, a.KeyShort, loc, a.Code)
			continue
		}
		var who []string
		for _, m := range a.Approvers {
			who = append(who, fmt.Sprintf("%s (key %s…)", m.KeyID, m.KeyShort))
		}
		fmt.Fprintf(w, "approval   block %d: %d of %d approvers: %s%s, code %s\n", a.Block, a.Need, len(a.Approvers), strings.Join(who, ", "), loc, a.Code)
	}
	for _, d := range r.Discharges {
		if d.Block < 0 {
			fmt.Fprintf(w, "discharge %d matches no approval of this ticket (a verifier refuses it); NOT VERIFIED\n", d.Index)
			continue
		}
		when := fmt.Sprintf("in %s", ago(d.until.Sub(r.now)))
		if d.Expired {
			when = fmt.Sprintf("EXPIRED %s ago", ago(r.now.Sub(d.until)))
		}
		fmt.Fprintf(w, "discharge %d approves block %d (%s), until %s (%s); NOT VERIFIED\n", d.Index, d.Block, d.KeyID, d.Until, when)
	}
}

// dischargeArgs reads --discharge values (text, - or @PATH) and parses
// each; a malformed one is a usage error naming its index.
func (e *env) dischargeArgs(args []string) ([]string, []*token.Discharge, error) {
	if len(args) > maxDischarges {
		return nil, nil, usageErr("at most %d --discharge (got %d)", maxDischarges, len(args))
	}
	var texts []string
	var ds []*token.Discharge
	for i, a := range args {
		text, err := e.textArg(a, "the discharge")
		if err != nil {
			return nil, nil, err
		}
		d, err := token.ParseDischarge(text)
		if err != nil {
			return nil, nil, fail(exitUsage, fmt.Errorf("--discharge %d: %w", i, err),
				"a discharge's text starts with "+token.DischargePrefix+": pass it whole, - to read it from standard input, or @PATH")
		}
		texts, ds = append(texts, text), append(ds, d)
	}
	return texts, ds, nil
}
