package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/jcs"
	"github.com/tickettool/tickettool/internal/shell"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// DischargeSuffix ends the name of every file of Config.DischargeDir the
// proxy reads discharges from.
const DischargeSuffix = ".dis"

// callArgs returns a call's arguments as the args digest covers them (the
// JSON text of params.arguments, "{}" when absent) and their digest, nil
// when caveat.ArgsDigest refuses them (the request then carries none).
// A present arguments is its value, null included (spec/CAVEATS.md, "The
// args digest"): a discharge for --args null allows only a call that sends
// null, and one for --args '{}' does not allow it.
func callArgs(params map[string]json.RawMessage) ([]byte, []byte) {
	text := []byte("{}")
	if raw, ok := params["arguments"]; ok && len(raw) > 0 {
		text = raw
	}
	d, err := caveat.ArgsDigest(text)
	if err != nil {
		return text, nil
	}
	return text, d
}

// foldCollision reports whether the args digest refuses args for two
// member names of one object, at any depth, equal under case folding
// (spec/CAVEATS.md, "The args digest"). It reads args again, and only
// for a call the digest refused.
func foldCollision(args []byte) bool {
	_, err := jcs.Canonical(args)
	return errors.Is(err, jcs.ErrFoldCollision)
}

// approvalText is what the agent is told for the approvals a refused call
// needs: who must approve (key id, location, code) and the command they
// run. With a discharge directory, the call's arguments are written there
// first, so the command says --args @FILE, and --out PATH puts the
// discharge where the proxy reads it first (dischargeNames).
func (p *Proxy) approvalText(st *ticketState, d *verify.Decision, tool string, args, digest []byte) string {
	var parts []string
	seen := map[int]bool{}
	missing := verify.MissingApproval(d)
	for _, r := range d.Refusals {
		if r.Check != verify.CheckApproval || r.Block < 0 || seen[r.Block] {
			continue
		}
		for _, a := range st.approvals {
			if a.Block != r.Block {
				continue
			}
			seen[a.Block] = true
			if a.Approver.Members == nil {
				parts = append(parts, p.approveLine(a, tool, args, digest))
				continue
			}
			var approved []string
			for _, m := range missing {
				if m.Block == a.Block {
					approved = m.Approved
				}
			}
			parts = append(parts, p.approveLines(a, approved, tool, args, digest))
		}
	}
	return strings.Join(parts, "; ")
}

// approveLine tells whom to ask for one approval and the command to run.
// The command names the call's tool (qualified, as the caveats see it):
// an args caveat approves a call's content, not its tool, so without
// tools= the discharge would allow any tool of the ticket with the same
// arguments (spec/CAVEATS.md, "In a discharge").
func (p *Proxy) approveLine(a token.UnverifiedApproval, tool string, args, digest []byte) string {
	code := token.BindingCode(a.Binding)
	who := a.Approver.KeyID
	if a.Approver.Location != "" {
		who += " at " + a.Approver.Location
	}
	// The name is the agent's: one that is not a single tool name (a
	// comma would make tools= list two tools) gets no command to approve.
	if c, err := caveat.NewTools(tool); err != nil || len(c.List) != 1 {
		return fmt.Sprintf("approval needed from %s (code %s), but the tool name is not one a discharge can name", who, code)
	}
	// Arguments without a digest (a number the digest cannot keep exact,
	// names equal under case folding, too deep) cannot be pinned: a
	// command without --args would approve any arguments for the tool,
	// and the agent chose the arguments, so it gets no command.
	if digest == nil {
		return fmt.Sprintf("approval needed from %s (code %s), but the call's arguments have no args digest "+
			"(spec/CAVEATS.md), so no approval can be limited to them: send arguments that have one", who, code)
	}
	cmd := []string{"tickettool approve --key", shell.Quote(a.Approver.KeyID + ".key")}
	argsRef := shell.Quote(string(args))
	if len(args) > maxInlineArgs {
		argsRef = "@ARGS.json" // a file holding the call's arguments
	}
	var out []string
	if p.cfg.DischargeDir != "" {
		name := argsName(code, tool, digest)
		if path, err := p.writeArgs(name, args); err != nil {
			p.log.Printf("discharge directory: %v", err)
		} else {
			// --out, never a shell redirect: the name is told to the
			// agent before the person runs the command, and approve
			// refuses a file or link the agent put there first where
			// a redirect would write through it.
			argsRef = shell.Quote("@" + path)
			out = []string{"--out", shell.Quote(filepath.Join(p.cfg.DischargeDir, p.freeDischargeName(name)))}
		}
	}
	cmd = append(cmd, "--once --args", argsRef)
	cmd = append(cmd, out...)
	cmd = append(cmd, shell.Quote("tools="+tool), p.cfg.ApproveTicket)
	return fmt.Sprintf("approval needed from %s (code %s): ask them to check the code and run: %s", who, code, strings.Join(cmd, " "))
}
