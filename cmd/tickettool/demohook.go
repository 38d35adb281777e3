package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// hooks is the demo's part about coding agents: a harness's recorded
// pre-tool events, each decided by one tickettool hook, as Claude Code
// runs it before every tool call.
func (d *demo) hooks() error {
	p := d.path
	d.say("\n== 8. A coding agent's own tools: tickettool hook")
	d.say("Claude Code reads, edits and runs commands through built-in tools that never pass")
	d.say("through MCP. Before each call it runs a hook with the call on standard input; this")
	d.say("hook is tickettool. The person's request becomes the main ticket in a directory the")
	d.say("hook reads (the hook reads the real clock, so this ticket is minted for now).")
	for _, dir := range []string{"agent", "proj/src"} {
		if err := os.MkdirAll(p(dir), 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(p("proj/src/rules.go"), []byte("package discount\n"), 0o600); err != nil {
		return err
	}
	main, err := d.tt(0, "mint", "--key", p("root.key"), "intent=fix the rounding bug in the discount code",
		"tools=builtin/read,builtin/write", "paths="+p("proj")+"/", "calls=20", "until=1h")
	if err != nil {
		return err
	}
	if err := os.WriteFile(p("agent/main.ticket"), []byte(main+"\n"), 0o600); err != nil {
		return err
	}
	d.say("   (saved as agent/main.ticket)")
	d.say("\nA subagent of type Explore gets a narrower ticket of its own: read only, src/ only.")
	if _, err := d.tt(0, "hook", "delegate", "--ticket-dir", p("agent"), "Explore", "tools=builtin/read",
		"paths="+p("proj/src")+"/"); err != nil {
		return err
	}
	flags := []string{"--ticket-dir", p("agent"), "--key", p("root.key.pub"), "--store", p("hook.db"),
		"--receipts", p("receipts.log"), "--receipt-key", p("receipts.key")}
	events := []struct {
		say, tool, input, agent string
		want                    int
	}{
		{"The agent reads a file of the project: allowed, and the hook says nothing (the person's own\npermission rules still apply).",
			"Read", `{"file_path":"src/rules.go"}`, "", 0},
		{"It reads a key outside the project: refused, in Claude Code's deny form, which the model reads.",
			"Read", `{"file_path":"/home/me/.ssh/id_ed25519"}`, "", 2},
		{"It runs a shell: a shell can touch any file, so a ticket scoped to paths refuses it.",
			"Bash", `{"command":"cat ~/.ssh/id_ed25519"}`, "", 2},
		{"It edits its own hook settings: refused whatever the ticket says.",
			"Edit", `{"file_path":".claude/settings.json","old_string":"hooks","new_string":"x"}`, "", 2},
		{"The Explore subagent tries to write: its own ticket is read only.",
			"Write", `{"file_path":"src/rules.go","content":"x"}`, "Explore", 2},
	}
	for i, ev := range events {
		d.say("\n%s", ev.say)
		agent := ""
		if ev.agent != "" {
			agent = fmt.Sprintf(`,"agent_id":"a1","agent_type":%q`, ev.agent)
		}
		event := fmt.Sprintf(`{"hook_event_name":"PreToolUse","cwd":%q,"tool_name":%q,"tool_input":%s,"tool_use_id":"toolu_%02d"%s}`,
			p("proj"), ev.tool, ev.input, i+1, agent)
		if err := d.hookEvent(ev.want, event, flags); err != nil {
			return err
		}
	}
	d.say("\nThe allowed call was charged to the family's budget when it was allowed:")
	if _, err := d.tt(0, "spent", "--key", p("root.key.pub"), "--store", p("hook.db"), "@"+p("agent/Explore.ticket")); err != nil {
		return err
	}
	return nil
}

// hookEvent shows and runs one hook process's work in-process: the event
// on standard input, the answer on standard output and standard error.
func (d *demo) hookEvent(want int, event string, flags []string) error {
	args := append([]string{"hook", "--harness", "claude"}, flags...)
	hide := func(s string) string { return strings.ReplaceAll(s, d.dir+"/", "") }
	d.say("$ echo '%s' |\n    tickettool %s", hide(event), hide(strings.Join(args, " ")))
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(event), &out, &errb)
	for _, s := range []string{out.String(), errb.String()} {
		if s != "" {
			d.say("%s", strings.TrimSuffix(hide(s), "\n"))
		}
	}
	if code != want {
		return fmt.Errorf("tickettool hook: exit status %d, want %d", code, want)
	}
	if code != 0 {
		d.say("(exit status %d: Claude Code blocks the call)", code)
	}
	return nil
}
