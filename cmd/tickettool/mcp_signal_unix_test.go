//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMCPSignal stops a real `tickettool mcp` process with SIGINT and with
// SIGTERM: it exits with 130 or 143, says so in exactly one line on
// stderr (no "context canceled"), and its server (fakemcp) is gone too.
func TestMCPSignal(t *testing.T) {
	bin := guardBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{
		{syscall.SIGINT, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			key := filepath.Join(dir, "root.key")
			cliOK(t, "keygen", "--alg", "ed25519", "--out", key)
			ticket := filepath.Join(dir, "ticket")
			if err := os.WriteFile(ticket, []byte(cliOK(t, "mint", "--key", key, "tools=greet", "until=1h")), 0o600); err != nil {
				t.Fatal(err)
			}
			g := startGuard(t, bin, dir, "mcp", "--ticket-file", ticket, "--key", key+".pub", "--", "fakemcp")
			g.ran(t, "greet") // the server runs
			b, err := os.ReadFile(filepath.Join(dir, "fakemcp.started"))
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			if err := g.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			for range g.lines { // the guard's output ends when it exits, stdin still open
			}
			code := g.close(t)
			if code != tc.code {
				t.Errorf("exit status %d, want %d", code, tc.code)
			}
			want := "tickettool: stopped by " + tc.name + "; the MCP server was stopped too\n"
			if got := g.stderr.String(); got != want {
				t.Errorf("stderr %q, want %q", got, want)
			}
			for deadline := time.Now().Add(reloadTimeout); ; time.Sleep(10 * time.Millisecond) {
				if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the server (pid %d) still runs after the guard exited", pid)
				}
			}
		})
	}
}

// guardBinary is the test binary as tickettool (testscript.Main put it in
// PATH), for tests that run the CLI as a real process.
func guardBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("tickettool")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// cliOK runs tickettool in-process and returns its trimmed stdout.
func cliOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb strings.Builder
	if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("tickettool %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return strings.TrimSpace(out.String())
}
