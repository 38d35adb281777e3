package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/hook"
)

const hookUsage = `
usage: tickettool hook --harness claude|codex|gemini|cursor|copilot
                       [--ticket-file FILE | --ticket-dir DIR] --key PATH
                       [--store LOCATION] [--receipts LOG --receipt-key PATH]
                       [policy flags]
       tickettool hook config --harness NAME [--ticket-dir DIR | --ticket-file FILE] ...
       tickettool hook delegate --ticket-dir DIR AGENT_TYPE CAVEAT...

The pre-tool hook of a coding agent: reads one hook event on standard
input, checks the call against the ticket, and answers as that harness
expects. Allowed: exit status 0 and nothing on standard output, so the
person's own permission rules still apply (Cursor, configured with
failClosed, gets {"permission":"allow"}). Refused: the harness's deny form
with one line saying what was asked and which block and caveat refused
it. Every error of the hook (input it cannot read, a tool it does not
know, a ticket that cannot be read or verified, a store or receipt log
that fails) is a refusal in the harness's form too: harnesses let a tool
run when its hook crashes.

One table maps every harness's built-in tools to the ticket's names:
builtin/read, builtin/write, builtin/fetch, builtin/shell,
builtin/websearch, builtin/agent; MCP tools are SERVER/TOOL. File tools
give their paths (relative ones taken against the event's cwd; symbolic
links checked as written and as resolved), fetch tools their URLs; a shell
gives none, so a ticket with paths= or hosts= refuses it unless its tools=
names it. Writes to the hook's own ticket, keys, store and receipt log,
and to any harness's hook configuration, are refused whatever the ticket
says.

The ticket comes from --ticket-file FILE, --ticket-dir DIR or
TICKETTOOL_TICKET (a file or directory given wins over the environment),
never from the command line. DIR holds DIR/main.ticket, and for a call
inside a subagent of type T (Claude Code, Codex) DIR/T.ticket when it
exists, which must be attenuated from the main ticket or every call under
it is refused.
'hook delegate' writes such a file; 'hook config' prints the harness's
configuration entry. Budgets are charged when a call is allowed;
post-tool events are recorded as receipts and give nothing back.

` + policyUsage + `
` + storeUsage + `
Example:
  tickettool hook config --harness claude --ticket-dir ~/.tickettool/agent --key ~/.tickettool/root.key.pub
  echo '{"hook_event_name":"PreToolUse","cwd":"/work","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}' |
      tickettool hook --harness claude --ticket-dir ~/.tickettool/agent --key ~/.tickettool/root.key.pub
`

// hookExit ends a hook process with its answer already written: no
// error line, the exit status the harness reads.
type hookExit struct{ code int }

func (h *hookExit) Error() string { return fmt.Sprintf("hook answered with exit status %d", h.code) }

func runHook(e *env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "config":
			return runHookConfig(e, args[1:])
		case "delegate":
			return runHookDelegate(e, args[1:])
		}
	}
	fs := newFlags(e, "hook", hookUsage)
	harness := fs.String("harness", "", "the coding agent: `NAME` claude, codex, gemini, cursor or copilot")
	src := &hook.Tickets{}
	fs.StringVar(&src.File, "ticket-file", "", "`FILE` holding the ticket")
	fs.StringVar(&src.Dir, "ticket-dir", "", "`DIR` of main.ticket and one AGENT_TYPE.ticket per subagent type")
	keyPath := fs.String("key", "", "`PATH` of the HMAC secret or the Ed25519 public key")
	receipts := fs.String("receipts", "", "receipt `LOG` to append to")
	receiptKey := fs.String("receipt-key", "", "`PATH` of the secret receipt key")
	pol := policyFlags(fs)
	location := storeFlag(fs)
	h, herr := hook.ParseHarness(harnessArg(args))
	pos, err := fs.parse(args)
	if errors.Is(err, errHelp) {
		return err
	}
	if err == nil && herr == nil && *harness != h.String() {
		err = errors.New("--harness is given twice")
	}
	if herr != nil {
		// Without a harness there is no deny form to answer in.
		return fail(exitUsage, herr, "pass --harness claude, codex, gemini, cursor or copilot")
	}
	// From here on every error is the harness's deny: a hook that exits
	// otherwise lets the call run in most harnesses.
	answer := func(a hook.Answer) error {
		e.stdout.Write(a.Stdout)
		e.stderr.Write(a.Stderr)
		if a.Code == 0 {
			return nil
		}
		return &hookExit{code: a.Code}
	}
	failed := func(err error) error { return answer(hook.Failure(h, errors.New(oneLine(err.Error())))) }
	src.Text = os.Getenv(ticketEnv)
	switch {
	case err != nil:
		return failed(err)
	case len(pos) > 0:
		return failed(fmt.Errorf("hook takes no arguments, got %s", quoteArg(pos[0])))
	case *keyPath == "":
		return failed(errors.New("hook needs --key"))
	case (*receipts == "") != (*receiptKey == ""):
		return failed(errors.New("--receipts and --receipt-key go together"))
	case src.File != "" && src.Dir != "":
		return failed(errors.New("give --ticket-file or --ticket-dir, not both"))
	case src.File != "" || src.Dir != "":
		src.Text = "" // a file or directory is the ticket; the environment's is left over
	}
	input, err := readEvent(e.stdin, hook.InputTimeout)
	if err != nil {
		return failed(err)
	}
	// One deadline for all the store's work, opening it and admitting
	// the call: well inside the shortest harness timeout.
	ctx, cancel := context.WithTimeout(context.Background(), hook.StoreTimeout)
	defer cancel()
	return decideHook(ctx, h, input, answer, failed, func(ctx context.Context) (*hook.Config, func(), error) {
		return hookConfig(ctx, h, src, *keyPath, *receipts, *receiptKey, pol, *location)
	})
}

// decideHook opens what the decision needs (open) and decides input. A
// panic anywhere on the way (Decide recovers its own) is the harness's
// deny too: Go's crash exits with status 2, which Copilot skips, letting
// the call run.
func decideHook(ctx context.Context, h hook.Harness, input []byte, answer func(hook.Answer) error, failed func(error) error,
	open func(context.Context) (*hook.Config, func(), error)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = failed(fmt.Errorf("internal error: %v", r))
		}
	}()
	cfg, closeAll, err := open(ctx)
	if err != nil {
		return failed(err)
	}
	defer closeAll()
	return answer(hook.Decide(ctx, cfg, input))
}

// hookConfig opens what a decision needs: keys, store (within ctx),
// receipt log.
func hookConfig(ctx context.Context, h hook.Harness, src *hook.Tickets, keyPath, receipts, receiptKey string, pol *policy, location string) (*hook.Config, func(), error) {
	_, keys, err := keysOf(keyPath)
	if err != nil {
		return nil, nil, err
	}
	opts, err := pol.options()
	if err != nil {
		return nil, nil, err
	}
	st, _, err := openStore(ctx, location)
	if err != nil {
		return nil, nil, err
	}
	closers := []func(){func() { st.Close() }}
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	var log *chain.Log
	if receipts != "" {
		if log, err = openReceipts(receipts, receiptKey); err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, func() { log.Close() })
	}
	g, err := guard.New(guard.Config{Keys: keys, Options: opts, Store: st, Receipts: log})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	cfg := &hook.Config{Harness: h, Guard: g, Tickets: *src, Receipts: log, Audience: pol.aud,
		Protected: protectedFiles(src, keyPath, location, receipts, receiptKey)}
	return cfg, closeAll, nil
}

// protectedFiles are the hook's own files, absolute: no call may write
// them, and no call may read a secret key.
func protectedFiles(src *hook.Tickets, keyPath, location, receipts, receiptKey string) []hook.Protected {
	var out []hook.Protected
	add := func(path string, dir, secret bool) {
		if path == "" {
			return
		}
		if abs, err := filepath.Abs(path); err == nil {
			out = append(out, hook.Protected{Path: abs, Dir: dir, Secret: secret})
		}
	}
	add(src.File, false, false)
	add(src.Dir, true, false)
	b, _ := os.ReadFile(keyPath)
	kind := sniffKey(bytes.TrimSpace(b))
	add(keyPath, false, kind != keyPublicString && kind != keyPublicJWK)
	if location != "memory" && !isRedis(location) {
		add(location, false, false)
	}
	add(receipts, false, false)
	add(receiptKey, false, true)
	if exe, err := os.Executable(); err == nil {
		add(exe, false, false)
	}
	// Codex reads its hooks and config from CODEX_HOME when it is set,
	// a directory of any name.
	add(os.Getenv("CODEX_HOME"), true, false)
	return out
}

// readEvent reads the event (at most hook.MaxEventBytes and one byte
// more, which Decide refuses) until the end of r, waiting at most
// timeout: a reader still open then is an error.
func readEvent(r io.Reader, timeout time.Duration) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, hook.MaxEventBytes+1))
		done <- result{b, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, fmt.Errorf("read the event: %w", res.err)
		}
		return res.b, nil
	case <-t.C:
		return nil, fmt.Errorf("the event did not end on standard input within %v", timeout)
	}
}

// harnessArg finds --harness's value before the flags are parsed, so that
// even a flag error is answered in the harness's deny form.
func harnessArg(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, p := range []string{"--harness", "-harness"} {
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v
			}
			if a == p && i+1 < len(args) {
				return args[i+1]
			}
		}
	}
	return ""
}
