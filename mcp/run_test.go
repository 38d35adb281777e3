//go:build unix

package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHelperServer is not a test: run by Run's tests as the child
// process, it is the fake filesystem server on stdio (MCP_HELPER=serve),
// or a server that never exits and leaves a grandchild (MCP_HELPER=hang).
func TestHelperServer(t *testing.T) {
	switch os.Getenv("MCP_HELPER") {
	case "serve":
		err := newFakeFS(&recorder{}).Run(context.Background(), &sdk.StdioTransport{})
		fmt.Fprintln(os.Stderr, "helper server done:", err)
		os.Exit(3)
	case "hang":
		sleep := exec.Command("sleep", "60")
		if err := sleep.Start(); err != nil {
			os.Exit(5)
		}
		os.WriteFile(os.Getenv("MCP_HELPER_PID"), []byte(strconv.Itoa(sleep.Process.Pid)), 0o600)
		select {}
	}
}

func helper(t *testing.T, mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServer$")
	cmd.Env = append(append(os.Environ(), "MCP_HELPER="+mode), env...)
	return cmd
}

func TestRunChildExitStatus(t *testing.T) {
	dir := realTempDir(t)
	sk, keys := rootKey(t)
	cfg := Config{Ticket: mint(t, sk, "paths="+dir), Keys: keys, Now: fixedNow, Log: &syncBuffer{}}
	pp := newPipes()
	defer pp.closeAll()
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Run(context.Background(), cfg, pp.agentIn, pp.agentOut, helper(t, "serve"))
		done <- result{code, err}
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: pp.fromProxy, Writer: pp.toProxy}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "a")
	os.WriteFile(f, []byte("through a child"), 0o600)
	s := &setup{cs: cs}
	if txt, isErr := s.call(t, "read_file", map[string]any{"path": f}); isErr || txt != "through a child" {
		t.Fatalf("read_file: %q %v", txt, isErr)
	}
	if txt, isErr := s.call(t, "read_file", map[string]any{"path": "/etc/passwd"}); !isErr || !strings.HasPrefix(txt, RefusalPrefix) {
		t.Fatalf("read_file: %q %v", txt, isErr)
	}
	cs.Close() // the agent's input ends: the server's stdin is closed, it exits
	select {
	case r := <-done:
		if r.code != 3 || r.err != nil {
			t.Fatalf("Run returned %d, %v; want the child's status 3", r.code, r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
}

func TestRunKillsGroupOnCancel(t *testing.T) {
	sk, keys := rootKey(t)
	cfg := Config{Ticket: mint(t, sk), Keys: keys, Now: fixedNow, Log: &syncBuffer{}}
	pidFile := filepath.Join(t.TempDir(), "pid")
	pp := newPipes()
	defer pp.closeAll()
	go io.Copy(io.Discard, pp.fromProxy)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var code int
	go func() {
		var err error
		code, err = Run(ctx, cfg, pp.agentIn, pp.agentOut, helper(t, "hang", "MCP_HELPER_PID="+pidFile))
		done <- err
	}()
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the helper did not start its grandchild")
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(string(b))
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || code != 128+int(syscall.SIGTERM) {
			t.Fatalf("Run returned %d, %v", code, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the server's grandchild outlived the proxy")
		}
	}
}

func TestRunStartFailure(t *testing.T) {
	sk, keys := rootKey(t)
	cfg := Config{Ticket: mint(t, sk), Keys: keys, Log: &syncBuffer{}}
	missing := filepath.Join(t.TempDir(), "missing")
	code, err := Run(context.Background(), cfg, strings.NewReader(""), io.Discard, exec.Command(missing))
	// One prefix and the system's reason: not "fork/exec PATH:" again.
	if want := "mcp: start server " + missing + ": no such file or directory"; code != 1 || err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Run returned %d, %v; want %q", code, err, want)
	}
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		_, after, _ := strings.Cut(string(b), ") ")
		return !strings.HasPrefix(after, "Z")
	}
	return syscall.Kill(pid, 0) == nil
}
