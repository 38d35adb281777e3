package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/hook"
	"github.com/tickettool/tickettool/token"
)

const hookDelegateUsage = `
usage: tickettool hook delegate --ticket-dir DIR [--now TIME] AGENT_TYPE CAVEAT...

Attenuates the main ticket DIR/main.ticket with the caveats and writes the
result to DIR/AGENT_TYPE.ticket (mode 0600, replacing an older one), the
ticket the hook checks every call of a subagent of that type against
(Claude Code and Codex name a subagent's type in each event). It prints
the file's path. AGENT_TYPE is 1 to 128 of A-Z a-z 0-9 _ . - (not
starting with ".", not "main"). CAVEAT is KIND=VALUE as mint and
attenuate take it.

Example:
  tickettool hook delegate --ticket-dir ~/.tickettool/agent Explore tools=builtin/read paths=/work/project/src/ calls=20
`

func runHookDelegate(e *env, args []string) error {
	fs := newFlags(e, "hook delegate", hookDelegateUsage)
	dir := fs.String("ticket-dir", "", "`DIR` of main.ticket")
	nowText := fs.String("now", "", "attenuate as of `TIME` (RFC 3339 or unix seconds) instead of now")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	now, err := e.nowFlag(*nowText)
	if err != nil {
		return err
	}
	switch {
	case *dir == "":
		return usageErr("hook delegate needs --ticket-dir DIR")
	case len(pos) < 2:
		return usageErr("hook delegate needs AGENT_TYPE and at least one CAVEAT")
	case !hook.ValidAgentType(pos[0]):
		return usageErr("agent type %s: use 1 to 128 of A-Z a-z 0-9 _ . - (not starting with \".\", not \"main\")", quoteArg(pos[0]))
	}
	b, err := readFile(filepath.Join(*dir, hook.MainTicket), "main ticket")
	if err != nil {
		return err
	}
	t, err := token.Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(*dir, hook.MainTicket), err)
	}
	if err := checkNotExpired(t, now); err != nil {
		return err
	}
	cavArgs, err := holderArgs(pos[1:])
	if err != nil {
		return err
	}
	cs, err := caveat.ParseAll(cavArgs, now)
	if err != nil {
		return err
	}
	if countKind(cs, caveat.Approval) > 0 {
		return usageErr("hook delegate appends no approval caveat: use attenuate --approval")
	}
	nt, err := t.Attenuate(cs, &token.Options{})
	if err != nil {
		return attenuateError(t, err)
	}
	path := filepath.Join(*dir, pos[0]+hook.TicketSuffix)
	if err := writeTicketFile(path, nt.String()+"\n"); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, path)
	return nil
}

// writeTicketFile writes text to path with mode 0600 through a temporary
// file renamed over it, so a hook reading it meanwhile sees the old
// ticket or the new one, never half of one.
func writeTicketFile(path, text string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".delegate-*")
	if err != nil {
		return fail(exitRefused, fmt.Errorf("write %s: %v", path, osReason(err)))
	}
	_, werr := tmp.WriteString(text)
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fail(exitRefused, fmt.Errorf("write %s: %v", path, err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fail(exitRefused, fmt.Errorf("write %s: %v", path, osReason(err)))
	}
	return nil
}
