package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/hook"
)

// TestHookFailsClosed: every error of the hook comes out as the
// harness's deny, with a reason saying what failed, for each harness:
// input it cannot read, a ticket that cannot be read or verified, a store
// or receipt log that fails, flags it cannot use. Each case starts from a
// call the ticket allows.
func TestHookFailsClosed(t *testing.T) {
	h := newHookEnv(t)
	read := func(harness string) string {
		for _, f := range events(t, harness, h.proj) {
			if f.Name == "allow-read-inside.json" || (harness == "codex" && f.Name == "allow-mcp-read-inside.json") {
				return string(f.Data)
			}
		}
		t.Fatalf("%s: no allowed read recorded", harness)
		return ""
	}
	notStore := filepath.Join(h.dir, "notastore.db")
	os.WriteFile(notStore, []byte("this is not a SQLite file, it is long enough to have a header of sorts.............................................."), 0o600)
	garbage := filepath.Join(h.dir, "garbage.ticket")
	os.WriteFile(garbage, []byte("tkt1_AAAA\n"), 0o600)
	otherDir := filepath.Join(h.dir, "other")
	os.MkdirAll(otherDir, 0o700)
	cli(t, "", "keygen", "--alg", "ed25519", "--out", filepath.Join(h.dir, "other.key"))
	other := cli(t, "", "mint", "--key", filepath.Join(h.dir, "other.key"), "tools=builtin/read", "until=1h")
	os.WriteFile(filepath.Join(otherDir, "main.ticket"), []byte(other), 0o600)
	empty := filepath.Join(h.dir, "empty")
	os.MkdirAll(empty, 0o700)

	cases := []struct {
		name  string
		event func(harness string) string
		flags []string // replacing the flag of the same name
		why   string   // in the reason
	}{
		{"empty input", func(string) string { return "" }, nil, "cannot read the hook event"},
		{"not JSON", func(string) string { return "tool_name=Read" }, nil, "cannot read the hook event"},
		{"an array", func(string) string { return "[]" }, nil, "cannot read the hook event"},
		{"tool name not a string", func(string) string { return `{"hook_event_name":"PreToolUse","toolName":5,"tool_name":5}` }, nil, "must be a string"},
		{"duplicate member", func(hn string) string { return strings.Replace(read(hn), `{`, `{"cwd":"/","CWD":"/",`, 1) }, nil, "appears twice"},
		{"data after the event", func(hn string) string { return read(hn) + "{}" }, nil, "data after"},
		{"path of the wrong type", func(hn string) string {
			return strings.NewReplacer(`\"`+h.proj+`/src/a.go\"`, "7", `"`+h.proj+`/src/a.go"`, "7").Replace(read(hn))
		}, nil, "must be a string"},
		{"unknown tool", func(hn string) string {
			return strings.NewReplacer(`"Read"`, `"Frobnicate"`, `"read_file"`, `"frobnicate"`, `"view"`, `"frobnicate"`,
				`"mcp__fs__read_file"`, `"Frobnicate"`).Replace(read(hn))
		}, nil, "not in the hook's table"},
		{"no ticket", read, []string{"--ticket-dir", empty}, "ticket cannot be read"},
		{"malformed ticket", read, []string{"--ticket-dir", "", "--ticket-file", garbage}, "ticket cannot be read"},
		{"ticket of another key", read, []string{"--ticket-dir", otherDir}, "no key for the ticket"},
		{"store that is no store", read, []string{"--store", notStore}, "cannot decide"},
		{"store that cannot be created", read, []string{"--store", filepath.Join(garbage, "x.db")}, "cannot decide"},
		{"receipt log that is a directory", read, []string{"--receipts", empty}, "cannot decide"},
		{"unknown flag", read, []string{"--frobnicate", "1"}, "cannot decide"},
		{"no key", read, []string{"--key", ""}, "needs --key"},
	}
	for _, harness := range harnessNames {
		for _, tc := range cases {
			env := &hookEnv{dir: h.dir, proj: h.proj, bin: h.bin, args: withFlags(h.args, tc.flags)}
			code, stdout, stderr := env.hookRun(t, harness, tc.event(harness))
			if harnessReads[harness](code, stdout, stderr) != blocked {
				t.Errorf("%s, %s: %s lets the call run (exit %d, stdout %q, stderr %q)", harness, tc.name, harness, code, stdout, stderr)
				continue
			}
			if !strings.Contains(stderr, tc.why) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s, %s: reason %q: want one line containing %q", harness, tc.name, stderr, tc.why)
			}
		}
	}
}

// withFlags returns args with each flag of flags set to its value (an
// empty value drops the flag), or added.
func withFlags(args, flags []string) []string {
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(flags); i += 2 {
		found := false
		for j := 0; j+1 < len(out); j++ {
			if out[j] == flags[i] {
				out[j+1], found = flags[i+1], true
				if flags[i+1] == "" {
					out = append(out[:j], out[j+2:]...)
				}
				break
			}
		}
		if !found && flags[i+1] != "" {
			out = append(out, flags[i], flags[i+1])
		}
	}
	return out
}

// TestHookBudgetAcrossProcesses: 20 hook processes at once, on a calls=5
// ticket and one SQLite store: exactly 5 calls are allowed, and the
// receipt log holds one record per decision.
func TestHookBudgetAcrossProcesses(t *testing.T) {
	h0 := newHookEnv(t)
	h := newHookEnv(t, "tools=builtin/read", "paths="+h0.proj+"/", "calls=5", "until=1h")
	h.proj = h0.proj
	event := fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":%q},"tool_use_id":"t"}`,
		h.proj, h.proj+"/src/a.go")
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed, refused := 0, 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, stdout, stderr := h.hookRun(t, "claude", event)
			mu.Lock()
			defer mu.Unlock()
			switch harnessReads["claude"](code, stdout, stderr) {
			case runs:
				allowed++
			default:
				refused++
				if !strings.Contains(stderr, "calls") {
					t.Errorf("refused for another reason than the budget: %s", stderr)
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 5 || refused != 15 {
		t.Fatalf("allowed %d, refused %d; want 5 and 15", allowed, refused)
	}
	out := cli(t, "", "receipt", "verify", "--key", filepath.Join(h.dir, "rcpt.key.pub"), filepath.Join(h.dir, "r.log"))
	if !strings.HasPrefix(out, "ok: 20 records") {
		t.Fatalf("receipt verify: %s", out)
	}
}

// TestHookStdinNeverEnds: a harness that never closes standard input gets
// a refusal within hook.InputTimeout, not a hook hanging until the
// harness's own timeout (which lets the tool run).
func TestHookStdinNeverEnds(t *testing.T) {
	h := newHookEnv(t)
	args := append([]string{"hook", "--harness", "codex"}, h.args...)
	cmd := exec.Command(h.bin, args...)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	pr.Close()
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if harnessReads["codex"](code, out.String(), errb.String()) != blocked || !strings.Contains(errb.String(), "did not end") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
}

// TestHookOwnFiles: under a ticket that allows every path, the hook
// process refuses writes to its own ticket directory, keys, store,
// receipt log and binary, and reads of its secret receipt key.
func TestHookOwnFiles(t *testing.T) {
	h := newHookEnv(t, "tools=builtin/read,builtin/write", "paths=/", "until=1h")
	event := func(tool, path string) string {
		return fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":%q,"tool_input":{"file_path":%q,"content":"x"},"tool_use_id":"t"}`,
			h.proj, tool, path)
	}
	for _, tc := range []struct{ tool, path string }{
		{"Write", filepath.Join(h.dir, "agent", "main.ticket")},
		{"Write", filepath.Join(h.dir, "agent", "Explore.ticket")},
		{"Write", filepath.Join(h.dir, "root.key.pub")},
		{"Write", filepath.Join(h.dir, "store.db")},
		{"Write", filepath.Join(h.dir, "store.db-wal")},
		{"Write", filepath.Join(h.dir, "r.log")},
		{"Read", filepath.Join(h.dir, "rcpt.key")},
		{"Write", h.bin},
	} {
		code, stdout, stderr := h.hookRun(t, "claude", event(tc.tool, tc.path))
		if harnessReads["claude"](code, stdout, stderr) != blocked || !strings.Contains(stderr, "whatever the ticket says") {
			t.Errorf("%s %s: exit %d, stderr %q", tc.tool, tc.path, code, stderr)
		}
	}
	if code, stdout, stderr := h.hookRun(t, "claude", event("Write", filepath.Join(h.proj, "src", "b.go"))); harnessReads["claude"](code, stdout, stderr) != runs {
		t.Errorf("a write in the project: exit %d, stderr %q", code, stderr)
	}
}

// TestHookStoreNeverAnswers: a store that accepts the connection and
// never answers refuses the call within hook.StoreTimeout, well inside
// the shortest harness timeout (Copilot's 30 s), in the harness's form.
func TestHookStoreNeverAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	h := newHookEnv(t)
	h.args = withFlags(h.args, []string{"--store", "redis://" + ln.Addr().String() + "/0"})
	event := fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"src/a.go"},"tool_use_id":"t"}`, h.proj)
	start := time.Now()
	code, stdout, stderr := h.hookRun(t, "copilot", event)
	took := time.Since(start)
	if harnessReads["copilot"](code, stdout, stderr) != blocked || !strings.Contains(stderr, "store") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if took > hook.StoreTimeout+5*time.Second {
		t.Fatalf("refused after %v", took)
	}
}
