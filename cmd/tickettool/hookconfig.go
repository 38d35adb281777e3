package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/hook"
	"github.com/tickettool/tickettool/internal/shell"
)

const hookConfigUsage = `
usage: tickettool hook config --harness NAME [--ticket-dir DIR | --ticket-file FILE]
                              --key PATH [--store LOCATION]
                              [--receipts LOG --receipt-key PATH] [--timeout SECONDS]

Prints the hook configuration for the harness, ready to paste; it writes
no file. Every tool goes through the hook (Claude Code's matcher "*";
no matcher, which means every tool, for the others), the
pre-tool event decides, and the post-tool events are recorded. Paths are
made absolute, and the command is this tickettool's absolute path, so
nothing on the agent's PATH can stand in for it.

  claude   .claude/settings.json (or ~/.claude/settings.json; managed
           settings with allowManagedHooksOnly keep an agent from
           turning it off): exec form with args, timeout in seconds
  codex    ~/.codex/hooks.json or .codex/hooks.json (trust it with /hooks)
  gemini   .gemini/settings.json (timeout in milliseconds)
  cursor   .cursor/hooks.json, with failClosed: true, so a hook that
           cannot answer blocks; the hook then answers an allowed call
           with {"permission":"allow"}
  copilot  .github/hooks/tickettool.json (timeoutSec)

Example:
  tickettool hook config --harness claude --ticket-dir ~/.tickettool/agent --key ~/.tickettool/root.key.pub
`

func runHookConfig(e *env, args []string) error {
	fs := newFlags(e, "hook config", hookConfigUsage)
	harness := fs.String("harness", "", "the coding agent: `NAME` claude, codex, gemini, cursor or copilot")
	ticketFile := fs.String("ticket-file", "", "`FILE` holding the ticket")
	ticketDir := fs.String("ticket-dir", "", "`DIR` of main.ticket and the subagents' tickets")
	keyPath := fs.String("key", "", "`PATH` of the HMAC secret or the Ed25519 public key")
	store := fs.String("store", "", "the store's `LOCATION` (default: the hook's default)")
	receipts := fs.String("receipts", "", "receipt `LOG`")
	receiptKey := fs.String("receipt-key", "", "`PATH` of the secret receipt key")
	timeout := fs.Int("timeout", 30, "the harness's timeout for the hook, in `SECONDS`")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	h, err := hook.ParseHarness(*harness)
	switch {
	case len(pos) > 0:
		return usageErr("hook config takes no arguments, got %s", quoteArg(pos[0]))
	case err != nil:
		return fail(exitUsage, err, "pass --harness claude, codex, gemini, cursor or copilot")
	case *keyPath == "":
		return usageErr("hook config needs --key")
	case (*ticketFile == "") == (*ticketDir == ""):
		return usageErr("hook config needs exactly one of --ticket-file and --ticket-dir")
	case (*receipts == "") != (*receiptKey == ""):
		return usageErr("--receipts and --receipt-key go together")
	case *timeout < 1 || *timeout > 600:
		return usageErr("--timeout takes 1 to 600 seconds")
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "tickettool"
	}
	argv := []string{"hook", "--harness", h.String()}
	for _, f := range []struct{ name, value string }{{"--ticket-file", *ticketFile}, {"--ticket-dir", *ticketDir},
		{"--key", *keyPath}, {"--store", *store}, {"--receipts", *receipts}, {"--receipt-key", *receiptKey}} {
		if f.value == "" {
			continue
		}
		v := f.value
		if f.name != "--store" || (v != "memory" && !isRedis(v)) {
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
		}
		argv = append(argv, f.name, v)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(hookConfigJSON(h, exe, argv, *timeout))
}

// hookConfigJSON is the harness's configuration entry for the hook.
func hookConfigJSON(h hook.Harness, exe string, argv []string, timeout int) any {
	words := make([]string, 0, len(argv)+1)
	for _, a := range append([]string{exe}, argv...) {
		words = append(words, shell.Quote(a))
	}
	line := strings.Join(words, " ")
	type obj = map[string]any
	// Claude Code reads "*" as every tool; Codex and Gemini CLI read a
	// matcher as a regular expression, where "*" is none: without one,
	// every harness runs the hook for every tool.
	group := func(handler obj) []obj { return []obj{{"hooks": []obj{handler}}} }
	switch h {
	case hook.Claude:
		hd := obj{"type": "command", "command": exe, "args": argv, "timeout": timeout}
		all := []obj{{"matcher": "*", "hooks": []obj{hd}}}
		return obj{"hooks": obj{"PreToolUse": all, "PostToolUse": all, "PostToolUseFailure": all}}
	case hook.Codex:
		hd := obj{"type": "command", "command": line, "timeout": timeout}
		return obj{"hooks": obj{"PreToolUse": group(hd), "PostToolUse": group(hd)}}
	case hook.Gemini:
		hd := obj{"type": "command", "command": line, "timeout": timeout * 1000}
		return obj{"hooks": obj{"BeforeTool": group(hd), "AfterTool": group(hd)}}
	case hook.Cursor:
		return obj{"version": 1, "hooks": obj{
			"preToolUse":         []obj{{"command": line, "failClosed": true}},
			"postToolUse":        []obj{{"command": line}},
			"postToolUseFailure": []obj{{"command": line}},
		}}
	case hook.Copilot:
		hd := obj{"type": "command", "bash": line, "timeoutSec": timeout}
		return obj{"version": 1, "hooks": obj{"preToolUse": []obj{hd}, "postToolUse": []obj{hd}}}
	}
	panic(fmt.Sprintf("hook config: harness %v", h))
}
