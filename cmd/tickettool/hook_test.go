package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The hook's promise is about processes: a harness starts one per tool
// call, writes the event on its standard input and reads its exit status,
// standard output and standard error by the harness's own rules. These
// tests run tickettool hook exactly so (the test binary under the name
// tickettool, which testscript.Main runs as the CLI) and read the answer
// as each harness does.

// harnessVerdict is what a harness does with a tool call after the hook answered.
type harnessVerdict string

const (
	runs    harnessVerdict = "allow"
	blocked harnessVerdict = "deny"
)

// harnessReads is each harness's reading of a pre-tool hook's answer, from
// its documentation and source as shared/research/hooks.md cites them.
var harnessReads = map[string]func(code int, stdout, stderr string) harnessVerdict{
	// Claude Code: exit 2 blocks whatever the JSON says; exit 0 with a
	// JSON object on stdout is read, and a deny counts only with
	// hookEventName; anything else (other exits, bad JSON) lets it run.
	"claude": func(code int, stdout, stderr string) harnessVerdict {
		if code == 2 {
			return blocked
		}
		if code == 0 && claudeDenies(stdout) {
			return blocked
		}
		return runs
	},
	// Codex: exit 2 blocks only with something on stderr; exit 0 with a
	// deny decision blocks; everything else runs.
	"codex": func(code int, stdout, stderr string) harnessVerdict {
		if code == 2 && strings.TrimSpace(stderr) != "" {
			return blocked
		}
		if code == 0 && (claudeDenies(stdout) || strings.Contains(stdout, `"decision":"block"`)) {
			return blocked
		}
		return runs
	},
	// Gemini CLI (hookRunner.ts): stdout, else stderr, is parsed as JSON
	// (decision deny or block blocks); text that is not JSON blocks only
	// with an exit status other than 0 and 1; nothing at all never blocks.
	"gemini": func(code int, stdout, stderr string) harnessVerdict {
		out := strings.TrimSpace(stdout)
		if out == "" {
			out = strings.TrimSpace(stderr)
		}
		if out == "" {
			return runs
		}
		var j struct{ Decision string }
		if json.Unmarshal([]byte(out), &j) == nil {
			if j.Decision == "deny" || j.Decision == "block" {
				return blocked
			}
			return runs
		}
		if code == 0 || code == 1 {
			return runs
		}
		return blocked
	},
	// Cursor with failClosed: true: exit 2 blocks; exit 0 runs only on
	// {"permission":"allow"}; an empty or unreadable answer, or a crash,
	// blocks.
	"cursor": func(code int, stdout, stderr string) harnessVerdict {
		var j struct{ Permission string }
		if code == 0 && json.Unmarshal([]byte(stdout), &j) == nil && j.Permission == "allow" {
			return runs
		}
		return blocked
	},
	// Copilot: a non-zero exit is logged and skipped; only a JSON deny
	// (with its reason) blocks: permissionDecision at the top level, or
	// VS Code's hookSpecificOutput.
	"copilot": func(code int, stdout, stderr string) harnessVerdict {
		if code != 0 {
			return runs
		}
		var j struct {
			PermissionDecision string
			Reason             string `json:"permissionDecisionReason"`
		}
		if json.Unmarshal([]byte(stdout), &j) == nil && j.PermissionDecision == "deny" && j.Reason != "" {
			return blocked
		}
		if claudeDenies(stdout) {
			return blocked
		}
		return runs
	},
}

func claudeDenies(stdout string) bool {
	var j struct {
		HookSpecificOutput struct {
			HookEventName      string
			PermissionDecision string
			Reason             string `json:"permissionDecisionReason"`
		}
	}
	return json.Unmarshal([]byte(stdout), &j) == nil && j.HookSpecificOutput.HookEventName == "PreToolUse" &&
		j.HookSpecificOutput.PermissionDecision == "deny" && j.HookSpecificOutput.Reason != ""
}

// denyForm is each harness's deny, exactly, for a reason.
func denyForm(harness string, pascal bool, reason string) (form struct {
	code   int
	stdout string
}) {
	q, _ := json.Marshal(reason)
	specific := `{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":` + string(q) + `}`
	switch harness {
	case "claude":
		form.code, form.stdout = 2, `{"hookSpecificOutput":`+specific+"}\n"
	case "codex", "gemini":
		form.code = 2
	case "cursor":
		form.stdout = `{"agent_message":` + string(q) + `,"permission":"deny","user_message":` + string(q) + "}\n"
	case "copilot":
		form.stdout = `{"permissionDecision":"deny","permissionDecisionReason":` + string(q) + "}\n"
		if pascal {
			form.stdout = `{"hookSpecificOutput":` + specific + `,"permissionDecision":"deny","permissionDecisionReason":` + string(q) + "}\n"
		}
	}
	return form
}

// hookEnv is a project with a ticket directory, keys and a store.
type hookEnv struct {
	dir, proj, bin string
	args           []string // the hook's flags after --harness NAME
}

var (
	binOnce sync.Once
	binDir  string
)

// tickettoolBin returns the test binary linked as tickettool.
func tickettoolBin(t *testing.T) string {
	binOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			panic(err)
		}
		binDir, err = os.MkdirTemp("", "tickettool-bin-")
		if err != nil {
			panic(err)
		}
		if err := os.Symlink(exe, filepath.Join(binDir, "tickettool")); err != nil {
			panic(err)
		}
	})
	return filepath.Join(binDir, "tickettool")
}

// cli runs tickettool in this process and returns its standard output.
func cli(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(stdin), &out, &errb); code != 0 {
		t.Fatalf("tickettool %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// newHookEnv makes the project and a ticket for it: the built-in read,
// write and fetch tools and the fs server's read_file, under the project.
func newHookEnv(t *testing.T, caveats ...string) *hookEnv {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &hookEnv{dir: dir, proj: filepath.Join(dir, "proj"), bin: tickettoolBin(t)}
	for _, d := range []string{"proj/src", "agent"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.proj, "src/a.go"), []byte("package a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "root.key")
	cli(t, "", "keygen", "--alg", "ed25519", "--out", key)
	cli(t, "", "keygen", "--alg", "ed25519", "--out", filepath.Join(dir, "rcpt.key"))
	if len(caveats) == 0 {
		caveats = []string{"tools=builtin/read,builtin/write,builtin/fetch,fs/read_file", "paths=" + h.proj + "/", "until=1h"}
	}
	ticket := cli(t, "", append([]string{"mint", "--key", key}, caveats...)...)
	if err := os.WriteFile(filepath.Join(dir, "agent/main.ticket"), []byte(ticket+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.args = []string{"--ticket-dir", filepath.Join(dir, "agent"), "--key", key + ".pub",
		"--store", filepath.Join(dir, "store.db"), "--receipts", filepath.Join(dir, "r.log"), "--receipt-key", filepath.Join(dir, "rcpt.key")}
	return h
}

// hookRun runs one hook process as the harness does and returns its
// answer.
func (h *hookEnv) hookRun(t *testing.T, harness, event string, extra ...string) (code int, stdout, stderr string) {
	t.Helper()
	args := append(append([]string{"hook", "--harness", harness}, h.args...), extra...)
	cmd := exec.Command(h.bin, args...)
	cmd.Stdin = strings.NewReader(event)
	cmd.Dir = h.proj
	cmd.Env = append(os.Environ(), "HOME="+h.dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// events reads the recorded events of a harness, with $PROJ replaced.
func events(t *testing.T, harness, proj string) []txtar.File {
	a, err := txtar.ParseFile(filepath.Join("..", "..", "hook", "testdata", "events", harness+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Files {
		a.Files[i].Data = bytes.ReplaceAll(a.Files[i].Data, []byte("$PROJ"), []byte(proj))
	}
	return a.Files
}

var harnessNames = []string{"claude", "codex", "gemini", "cursor", "copilot"}

// TestHookRecordedEvents runs every recorded event of every harness
// through a hook process and reads its answer as the harness does: the
// decision is the one the event's file name states, an allowed call is
// silent (Cursor: its allow form), a deny carries a reason, and a
// post-tool event never blocks and prints nothing.
func TestHookRecordedEvents(t *testing.T) {
	h := newHookEnv(t)
	for _, harness := range harnessNames {
		for _, f := range events(t, harness, h.proj) {
			want, _, _ := strings.Cut(f.Name, "-")
			code, stdout, stderr := h.hookRun(t, harness, string(f.Data))
			got := harnessReads[harness](code, stdout, stderr)
			name := harness + "/" + f.Name
			switch want {
			case "allow", "post":
				if got != runs && want == "allow" { // a post-tool event cannot block in any harness
					t.Errorf("%s: %s blocks the call (exit %d, stdout %q, stderr %q)", name, harness, code, stdout, stderr)
				}
				silent := stdout == ""
				if harness == "cursor" && want == "allow" {
					silent = stdout == "{\"permission\":\"allow\"}\n"
				}
				if code != 0 || !silent || (want == "post" && stderr != "") {
					t.Errorf("%s: allowed with exit %d, stdout %q, stderr %q; want exit 0 and nothing else", name, code, stdout, stderr)
				}
			case "deny":
				if got != blocked {
					t.Errorf("%s: %s lets the call run (exit %d, stdout %q, stderr %q)", name, harness, code, stdout, stderr)
				}
				if !strings.HasPrefix(stderr, "tickettool: refused ") || strings.Count(stderr, "\n") != 1 {
					t.Errorf("%s: reason %q: want one line naming what was refused", name, stderr)
				}
				if form := denyForm(harness, strings.Contains(f.Name, "pascal"), strings.TrimSuffix(stderr, "\n")); code != form.code || stdout != form.stdout {
					t.Errorf("%s: deny (exit %d) %s\nwant (exit %d) %s", name, code, stdout, form.code, form.stdout)
				}
			default:
				t.Fatalf("%s: file name must start with allow-, deny- or post-", name)
			}
		}
	}
}

// TestHookOneTicketEveryHarness: the same call in every harness's form
// gets the same decision from one ticket.
func TestHookOneTicketEveryHarness(t *testing.T) {
	h := newHookEnv(t)
	decided := map[string]map[string]harnessVerdict{} // call name -> harness -> harnessVerdict
	for _, harness := range harnessNames {
		for _, f := range events(t, harness, h.proj) {
			_, call, _ := strings.Cut(strings.TrimSuffix(strings.TrimSuffix(f.Name, ".json"), "-pascal"), "-")
			if strings.HasPrefix(f.Name, "post-") {
				continue
			}
			code, stdout, stderr := h.hookRun(t, harness, string(f.Data))
			if decided[call] == nil {
				decided[call] = map[string]harnessVerdict{}
			}
			decided[call][harness] = harnessReads[harness](code, stdout, stderr)
		}
	}
	shared := 0
	for call, by := range decided {
		if len(by) < 2 {
			continue
		}
		shared++
		var first harnessVerdict
		for _, v := range by {
			if first == "" {
				first = v
			}
			if v != first {
				t.Errorf("call %s: decisions differ across harnesses: %v", call, by)
				break
			}
		}
	}
	if shared < 6 {
		t.Fatalf("only %d calls recorded in several harnesses", shared)
	}
	for _, call := range []string{"read-outside", "shell", "write-inside", "hook-config"} {
		if len(decided[call]) < 4 {
			t.Errorf("call %s is recorded in %d harnesses, want at least 4", call, len(decided[call]))
		}
	}
}
