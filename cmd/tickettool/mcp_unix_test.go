//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tickettool/tickettool/token"
)

// reloadTimeout bounds each wait on the child processes; generous, so a
// loaded machine does not make the test flaky.
const reloadTimeout = 30 * time.Second

// TestMCPReload runs `tickettool mcp --ticket-file F` as a real process
// (the test binary as tickettool, as the scripts run it) over fakemcp, and
// replaces the ticket with SIGHUP: a good ticket takes effect for the next
// call, a bad one (garbage, expired, under another key, no file) leaves
// the old one in force, and each SIGHUP logs exactly one line that never
// shows a ticket.
func TestMCPReload(t *testing.T) {
	bin, err := exec.LookPath("tickettool") // testscript.Main put it in PATH
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("tickettool %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return strings.TrimSpace(out.String())
	}
	key := filepath.Join(dir, "root.key")
	cli("keygen", "--alg", "ed25519", "--out", key, "--kid", "root")
	cli("keygen", "--alg", "ed25519", "--out", filepath.Join(dir, "other.key"), "--kid", "root")
	a := cli("mint", "--key", key, "tools=greet", "until=1h")
	b := cli("mint", "--key", key, "tools=greet,shout", "until=1h")
	expired := cli("mint", "--key", key, "--now", "2019-01-01T00:00:00Z", "tools=greet,shout", "until=2020-01-01T00:00:00Z")
	forged := cli("mint", "--key", filepath.Join(dir, "other.key"), "tools=greet,shout", "until=1h")

	f := filepath.Join(dir, "ticket")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("\n  " + a + " \t\n\n") // surrounding whitespace is trimmed
	g := startGuard(t, bin, dir, "mcp", "--ticket-file", f, "--key", key+".pub", "--", "fakemcp")

	g.refused(t, "shout", "block 0 caveat tools: tool shout is not in tools=greet")
	g.ran(t, "greet")

	write(b)
	g.hangup(t, fmt.Sprintf("SIGHUP: replaced the ticket with the one in %s: 1 block, ticket id %s…", f, idPrefix(t, b)))
	g.ran(t, "shout")

	for _, bad := range []struct{ text, log string }{
		{"garbage", "SIGHUP: kept the old ticket: --ticket-file " + f + ": token: malformed ticket"},
		{expired, "SIGHUP: kept the old ticket: mcp: the ticket can never allow a call: block 0 caveat until: expired at 2020-01-01T00:00:00Z"},
		{forged, "SIGHUP: kept the old ticket: mcp: the ticket can never allow a call: block 0 chain: "},
		{"", "SIGHUP: kept the old ticket: read ticket file " + f + ": no such file or directory"},
	} {
		if bad.text == "" {
			os.Remove(f)
		} else {
			write(bad.text)
		}
		g.hangup(t, bad.log)
		g.ran(t, "shout") // b is still in force
		g.refused(t, "whisper", "tool whisper is not in tools=greet,shout")
	}

	write(a)
	g.hangup(t, "SIGHUP: replaced the ticket with the one in "+f+": 1 block, ticket id "+idPrefix(t, a)+"…")
	g.refused(t, "shout", "tool shout is not in tools=greet")

	if code := g.close(t); code != 0 {
		t.Fatalf("tickettool mcp exited %d\n%s", code, g.stderr)
	}
	log := g.stderr.String()
	if n := strings.Count(log, "SIGHUP: "); n != g.hangups {
		t.Errorf("%d SIGHUP lines for %d signals:\n%s", n, g.hangups, log)
	}
	for _, text := range []string{a, b, expired, forged, "garbage"} {
		if strings.Contains(log, text) {
			t.Errorf("the log shows the file's text %.12s…:\n%s", text, log)
		}
	}
}

func idPrefix(t *testing.T, text string) string {
	tk, err := token.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := tk.UnverifiedLastID()
	return id.String()[:16]
}

// guard is a running `tickettool mcp` and the agent's end of its stdio.
type guardProc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	lines   chan string // the guard's stdout, line by line
	stderr  *safeBuffer
	nextID  int
	hangups int
}

func startGuard(t *testing.T, bin, dir string, args ...string) *guardProc {
	t.Helper()
	g := &guardProc{cmd: exec.Command(bin, args...), lines: make(chan string, 16), stderr: &safeBuffer{}}
	g.cmd.Dir = dir
	// Under -race the children would sleep 1 s at exit otherwise.
	g.cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
		"TICKETTOOL_STORE="+filepath.Join(dir, "store.db")) // never the user's default store
	g.cmd.Stderr = g.stderr
	var err error
	if g.in, err = g.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := g.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.cmd.Process.Kill(); g.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			g.lines <- sc.Text()
		}
		close(g.lines)
	}()
	return g
}

// call makes a tools/call and returns the guard's answer to it.
func (g *guardProc) call(t *testing.T, tool string) string {
	t.Helper()
	g.nextID++
	fmt.Fprintf(g.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`+"\n", g.nextID, tool)
	want := fmt.Sprintf(`"id":%d,`, g.nextID)
	for {
		select {
		case line, ok := <-g.lines:
			if !ok {
				t.Fatalf("call %s: the guard's output ended\n%s", tool, g.stderr)
			}
			if strings.Contains(line, want) {
				return line
			}
		case <-time.After(reloadTimeout):
			t.Fatalf("call %s: no answer\n%s", tool, g.stderr)
		}
	}
}

func (g *guardProc) ran(t *testing.T, tool string) {
	t.Helper()
	if line := g.call(t, tool); !strings.Contains(line, `"text":"ran `+tool+`"`) {
		t.Fatalf("%s was not run: %s", tool, line)
	}
}

func (g *guardProc) refused(t *testing.T, tool, why string) {
	t.Helper()
	if line := g.call(t, tool); !strings.Contains(line, `"text":"refused by ticket: `) || !strings.Contains(line, why) {
		t.Fatalf("%s: got %s, want a refusal with %q", tool, line, why)
	}
}

// hangup sends SIGHUP and waits for the log line it causes.
func (g *guardProc) hangup(t *testing.T, line string) {
	t.Helper()
	g.hangups++
	if err := g.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(reloadTimeout); strings.Count(g.stderr.String(), "SIGHUP: ") < g.hangups; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line after SIGHUP %d:\n%s", g.hangups, g.stderr)
		}
	}
	log := g.stderr.String()
	if i := strings.LastIndex(log, "SIGHUP: "); !strings.HasPrefix(log[i:], strings.TrimPrefix(line, "tickettool mcp: ")) {
		t.Fatalf("after SIGHUP %d the log says %q, want %q", g.hangups, strings.SplitN(log[i:], "\n", 2)[0], line)
	}
}

// close ends the agent's input and returns the guard's exit status.
func (g *guardProc) close(t *testing.T) int {
	t.Helper()
	g.in.Close()
	for range g.lines {
	}
	err := g.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// safeBuffer is a bytes.Buffer safe for concurrent writes and reads.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *safeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
