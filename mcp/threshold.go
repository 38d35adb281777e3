package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/shell"
	"github.com/tickettool/tickettool/token"
)

// approveLines tells whom to ask for a threshold approval (spec/FORMAT.md
// §4.6) that approved (key ids) have approved already, and the command
// each of the others runs. The call has one record in the discharge
// directory, its arguments (NAME.json, argsName: the code, the tool and
// the args digest, so a changed call gets a new record); each approver's
// discharge goes beside it, to a name of its own (approverName), which
// the guard reads first for this call, and each command passes the
// discharges already there with --with, so approve shows how many the
// call has and needs.
func (p *Proxy) approveLines(a token.UnverifiedApproval, approved []string, tool string, args, digest []byte) string {
	code := token.BindingCode(a.Binding)
	ap := a.Approver
	var waiting []string
	for _, m := range ap.Members {
		if !slices.Contains(approved, m.KeyID) {
			waiting = append(waiting, m.KeyID)
		}
	}
	who := fmt.Sprintf("%d of %s", ap.Need, strings.Join(keyIDs(ap.Members), ", "))
	if ap.Location != "" {
		who += " at " + ap.Location
	}
	if c, err := caveat.NewTools(tool); err != nil || len(c.List) != 1 {
		return fmt.Sprintf("approvals needed from %s (code %s), but the tool name is not one a discharge can name", who, code)
	}
	if digest == nil {
		return fmt.Sprintf("approvals needed from %s (code %s), but the call's arguments have no args digest "+
			"(spec/CAVEATS.md), so no approval can be limited to them: send arguments that have one", who, code)
	}
	argsRef := shell.Quote(string(args))
	if len(args) > maxInlineArgs {
		argsRef = "@ARGS.json"
	}
	name := argsName(code, tool, digest)
	dir := p.cfg.DischargeDir
	if dir != "" {
		if path, err := p.writeArgs(name, args); err != nil {
			p.log.Printf("discharge directory: %v", err)
			dir = ""
		} else {
			argsRef = shell.Quote("@" + path)
		}
	}
	var lines []string
	for i, m := range ap.Members {
		if !slices.Contains(waiting, m.KeyID) {
			continue
		}
		cmd := []string{"tickettool approve --key", shell.Quote(m.KeyID + ".key"), "--once --args", argsRef}
		if dir != "" {
			for j := range ap.Members {
				if path := p.existingDischarge(approverName(name, j)); j != i && path != "" {
					cmd = append(cmd, "--with", shell.Quote("@"+path))
				}
			}
			cmd = append(cmd, "--out", shell.Quote(filepath.Join(dir, p.freeDischargeName(approverName(name, i)))))
		}
		cmd = append(cmd, shell.Quote("tools="+tool), p.cfg.ApproveTicket)
		lines = append(lines, m.KeyID+" runs: "+strings.Join(cmd, " "))
	}
	return fmt.Sprintf("approvals needed from %s (code %s), waiting for %s: ask them to check the code and run: %s",
		who, code, strings.Join(waiting, ", "), strings.Join(lines, "; "))
}

// existingDischarge returns the path of the first of dischargeNames(name)
// that is a regular file in the discharge directory, or "".
func (p *Proxy) existingDischarge(name string) string {
	for _, n := range dischargeNames(name) {
		path := filepath.Join(p.cfg.DischargeDir, n)
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
			return path
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			p.log.Printf("discharge directory: %v", err)
		}
	}
	return ""
}

// keyIDs returns the key ids of ms.
func keyIDs(ms []caveat.Member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.KeyID
	}
	return out
}
