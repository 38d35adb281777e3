package main

// TestREADME runs the examples of README.md and mcp/README.md, read from
// the Markdown when the test runs, so a changed example changes the test.
//
// How to write an example the test runs:
//
//   - A ```console block holds commands, each on a line starting "$ "
//     (a line ending in "\" continues it), each followed by the output a
//     person sees, standard output and standard error interleaved as on a
//     terminal. The output must match line for line, where "…" stands for
//     any text, a word of 8 or more lowercase hex digits (at least one a
//     digit) for any hex word of that length (ids, key hashes), and an RFC
//     3339 time for any such time. The exit status must be nonzero when
//     the output shows "tickettool: error: …" or a hook's "tickettool:
//     refused …", or starts with the verdict "refused" or "invalid", and
//     zero otherwise.
//   - A ```sh block is a script shown without its output: it runs as one
//     bash script under set -e and must exit 0.
//   - Every block runs in order in one bash session per file: a fresh
//     temporary directory as the working directory, a fresh HOME, and
//     first on PATH a tickettool built from this tree (this test binary,
//     which testscript.Main installs under that name). Variables set in
//     one block are there in the next ("set -a" exports each), and so is a
//     cd; a variable used before any example sets it is an error ("set
//     -u"), so an example cannot lean on one only another file defines.
//   - A marker on the last non-blank line before a block changes it:
//     <!-- readme-test: skip (REASON) --> does not run it (every block that
//     is not console or sh needs one: Go code, JSON, a configuration);
//     <!-- readme-test: vary TEXT... --> makes each TEXT in its output
//     stand for any text without spaces (a code, a key's prefix, a
//     duration from the clock); <!-- readme-test: needs fs-server --> runs
//     it only when TICKETTOOL_E2E_FS_SERVER names the reference MCP
//     filesystem server (mcp/testdata/e2e/install.sh prints it; with
//     CI=true it must), with "npx -y @modelcontextprotocol/server-filesystem"
//     run as node "$TICKETTOOL_E2E_FS_SERVER". Directives combine with ";".
//     Every skipped block is logged by name.
//   - approve asks on a terminal: the test answers "y", as the approver
//     would after reading what it shows.
//
// Why bash and not a testscript generated from the Markdown: the examples
// are what a reader types into a shell, with $(…), pipes, redirections,
// subshells and here-documents; testscript has none of these, so a
// translation would test something else than what the reader runs.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/internal/shell"
)

// readmeFiles are the Markdown files whose examples TestREADME runs, each
// in a session of its own (mcp/README.md stands alone).
var readmeFiles = []string{"README.md", "mcp/README.md"}

const (
	readmeCommandTimeout = 60 * time.Second
	npxFilesystem        = "npx -y @modelcontextprotocol/server-filesystem"
)

func TestREADME(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the README's examples need bash")
		}
		t.Skip("the README's examples need bash")
	}
	for _, name := range readmeFiles {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			xs, err := readExamples(filepath.Join("..", "..", filepath.FromSlash(name)), name)
			if err != nil {
				t.Fatal(err)
			}
			s := newReadmeSession(t)
			for _, x := range xs {
				if !s.run(t, x) {
					return // later examples build on this one
				}
			}
		})
	}
}

// readmeSession is one file's bash session: its environment carries over
// from command to command.
type readmeSession struct {
	env     []string
	envFile string
	fs      string // the filesystem server's entry script, or ""
}

func newReadmeSession(t *testing.T) *readmeSession {
	dir, home, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	answer := filepath.Join(tmp, "answer")
	if err := os.WriteFile(answer, []byte("y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &readmeSession{envFile: filepath.Join(tmp, "env"), fs: os.Getenv("TICKETTOOL_E2E_FS_SERVER")}
	s.env = []string{
		// PATH has the test binary as tickettool first (testscript.Main).
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"PWD=" + dir,
		"TMPDIR=" + tmp,
		"LANG=C.UTF-8",
		"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
		testTerminalEnv + "=" + answer,
		"TICKETTOOL_E2E_FS_SERVER=" + s.fs,
	}
	return s
}

// run runs one example and reports whether the file's later examples
// can still run.
func (s *readmeSession) run(t *testing.T, x *example) bool {
	switch {
	case x.skip != "":
		t.Logf("skipped %s: %s", x.name(), x.skip)
		return true
	case x.needs == "fs-server" && s.fs == "":
		if os.Getenv("CI") == "true" {
			t.Errorf("%s needs TICKETTOOL_E2E_FS_SERVER (CI=true): run mcp/testdata/e2e/install.sh and set it to the path it prints", x.name())
			return false
		}
		t.Logf("skipped %s: needs the reference filesystem server: TICKETTOOL_E2E_FS_SERVER is not set", x.name())
		return true
	case x.lang == "sh":
		out, code := s.bash(t, "set -e\n"+strings.Join(x.body, "\n"), x)
		if code != 0 {
			t.Errorf("%s: the script exited %d:\n%s", x.name(), code, out)
			return false
		}
		return true
	case x.lang == "console":
		return s.console(t, x)
	}
	t.Errorf("%s: a ```%s block without a readme-test marker: make it a console or sh example, or mark it <!-- readme-test: skip (REASON) -->", x.name(), x.lang)
	return true
}

// console runs a console block's commands and checks each one's output
// and exit status.
func (s *readmeSession) console(t *testing.T, x *example) bool {
	cmds, err := x.commands()
	if err != nil {
		t.Error(err)
		return false
	}
	for _, c := range cmds {
		out, code := s.bash(t, c.text, x)
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if out == "" {
			got = nil
		}
		where := fmt.Sprintf("%s:%d", x.file, c.line)
		if bad := matchOutput(c.want, got, x.vary); bad != "" {
			t.Errorf("%s: $ %s\n%s\nwant:\n%s\ngot:\n%s", where, c.text, bad, strings.Join(c.want, "\n"), out)
			return false
		}
		if fail := wantsFailure(c.want); fail != (code != 0) {
			t.Errorf("%s: $ %s\nexit status %d, but the text shows %s", where, c.text, code, map[bool]string{true: "a failure", false: "success"}[fail])
			return false
		}
	}
	return true
}

// matchOutput returns "" when got matches the shown lines want, else what
// differs.
func matchOutput(want, got []string, vary []string) string {
	for i, w := range want {
		if i >= len(got) {
			return fmt.Sprintf("line %d is missing: %q", i+1, w)
		}
		re := linePattern(strings.TrimRight(w, " \t"), vary)
		if g := strings.TrimRight(got[i], " \t"); !re.MatchString(g) {
			return fmt.Sprintf("line %d: got %q, want %q (as %s)", i+1, g, w, re)
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("line %d is not shown: %q", len(want)+1, got[len(want)])
	}
	return ""
}

var npxRE = regexp.MustCompile(regexp.QuoteMeta(npxFilesystem))

// bash runs script in the session's environment and returns its
// standard output and standard error, interleaved as written, and its
// exit status. The environment it leaves is the next command's.
func (s *readmeSession) bash(t *testing.T, script string, x *example) (string, int) {
	if x.needs == "fs-server" {
		script = npxRE.ReplaceAllLiteralString(script, `node "$TICKETTOOL_E2E_FS_SERVER"`)
	}
	wrapped := "set -au\n" + script + "\n__rc=$?\nenv -0 > " + shell.Quote(s.envFile) + "\nexit $__rc\n"
	ctx, cancel := context.WithTimeout(context.Background(), readmeCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", wrapped)
	cmd.Env = s.env
	cmd.Dir = s.getenv("PWD")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	os.Remove(s.envFile)
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code <= 0 {
		t.Fatalf("%s: bash: %v", x.name(), err)
	}
	if b, err := os.ReadFile(s.envFile); err == nil {
		var env []string
		for kv := range strings.SplitSeq(strings.TrimSuffix(string(b), "\x00"), "\x00") {
			if k, _, _ := strings.Cut(kv, "="); k != "_" && k != "SHLVL" && k != "__rc" {
				env = append(env, kv)
			}
		}
		s.env = env
	}
	return out.String(), code
}

// getenv returns the session's value of k.
func (s *readmeSession) getenv(k string) string {
	for _, kv := range s.env {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v
		}
	}
	return ""
}
