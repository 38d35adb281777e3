package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/shell"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// approveCmd is how a hint's 'tickettool approve' command names the
// ticket, the call's tool and its arguments: as the person gave them.
type approveCmd struct {
	ticket string // TICKET as approve takes it: the text, or @PATH
	tool   string // the call's tool (--tool), or ""
	args   string // --args as approve takes it (JSON, @FILE), or ""
}

// line returns the approve command an approver of a runs, writing the
// discharge to out with --out (created new, never through a link; never
// a shell redirect). It names the call's tool: an args caveat approves a
// call's content, not its tool, so without tools= the discharge would
// allow any tool of the ticket called with the same arguments
// (spec/CAVEATS.md, "In a discharge").
func (c approveCmd) line(a caveat.Member, out string) string {
	parts := []string{"tickettool approve --key", shell.Quote(a.KeyID + ".key")}
	if c.args != "" {
		parts = append(parts, "--once --args", shell.Quote(c.args))
	}
	parts = append(parts, "--out", shell.Quote(out))
	if c.tool != "" {
		parts = append(parts, shell.Quote("tools="+c.tool))
	}
	return strings.Join(append(parts, shell.Quote(c.ticket)), " ")
}

// approvalNeeded is an approval of the ticket that a refusal asks for.
type approvalNeeded struct {
	block    int
	approver caveat.Approver
	code     string
}

// approvalsNeeded returns the approvals a decision's refusals ask for: one
// per block with an approval refusal (none, or a discharge that did not
// hold: either way the approver must approve again).
func approvalsNeeded(t *token.Ticket, rs []verify.Refusal) []approvalNeeded {
	var out []approvalNeeded
	seen := map[int]bool{}
	aps := t.UnverifiedApprovals()
	for _, r := range rs {
		if r.Check != verify.CheckApproval || r.Block < 0 || seen[r.Block] {
			continue
		}
		for _, a := range aps {
			if a.Block == r.Block {
				seen[r.Block] = true
				out = append(out, approvalNeeded{block: a.Block, approver: a.Approver, code: token.BindingCode(a.Binding)})
			}
		}
	}
	return out
}

// approvalHints say whom to ask and the command they run, for each
// approval the refusals ask for: the discharge goes to CODE.dis (for an
// approver of a threshold approval, CODE.N.dis, N its place among the
// approvers). missing (verify.MissingApproval) leaves out the approvers
// of a threshold approval who approved already.
func approvalHints(t *token.Ticket, rs []verify.Refusal, missing []verify.Missing, cmd approveCmd) []string {
	var hints []string
	for _, n := range approvalsNeeded(t, rs) {
		if n.approver.Members == nil {
			out := n.code + ".dis"
			m := caveat.Member{KeyID: n.approver.KeyID, Key: n.approver.Key}
			hints = append(hints, fmt.Sprintf("block %d needs an approval from %s: they check the code %s and run: %s; then pass --discharge @%s",
				n.block, approvalWho(n.approver), n.code, cmd.line(m, out), out))
			continue
		}
		// One file per approver, so that each discharge lands beside
		// the others; numbered, since a key id may hold a '/'.
		hints = append(hints, fmt.Sprintf("block %d needs approvals from %s: they check the code %s", n.block, approvalWho(n.approver), n.code))
		var approved []string
		for _, x := range missing {
			if x.Block == n.block {
				approved = x.Approved
			}
		}
		for i, m := range n.approver.Members {
			if slices.Contains(approved, m.KeyID) {
				continue
			}
			out := n.code + "." + strconv.Itoa(i+1) + ".dis"
			hints = append(hints, fmt.Sprintf("%s runs: %s; then pass --discharge @%s", m.KeyID, cmd.line(m, out), out))
		}
	}
	return hints
}
