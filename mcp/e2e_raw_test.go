//go:build unix

package mcp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// rawE2E is one `tickettool mcp` over the real filesystem server with the
// test speaking raw JSON-RPC as the agent: it can send what no SDK would
// (reused ids, odd members) and sees every line the guard writes back.
type rawE2E struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	mu     sync.Mutex
	wmu    sync.Mutex
	byID   map[string]chan string
	stderr *e2eBuffer
}

func (e *e2e) startRaw(t *testing.T, ticket string) *rawE2E {
	t.Helper()
	ticketFile := filepath.Join(t.TempDir(), "ticket")
	if err := os.WriteFile(ticketFile, []byte(ticket+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(e.bin, "mcp", "--ticket-file", ticketFile, "--key", filepath.Join(e.keys, "root.key.pub"),
		"--receipts", e.log, "--receipt-key", filepath.Join(e.keys, "rk.key"), "--server-name", "fs",
		"--", e.node, e.entry, e.ws)
	r := &rawE2E{cmd: cmd, byID: map[string]chan string{}, stderr: &e2eBuffer{}}
	cmd.Stderr = r.stderr
	var err error
	if r.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		// A guard wedged by a call the server never answers does not end
		// when its input does (the end is queued behind the waiting
		// calls): SIGTERM ends it and its server.
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
			}
		}
		if t.Failed() {
			t.Logf("guard and server stderr:\n%s", r.stderr)
		}
	})
	go func() {
		br := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal([]byte(line), &m)
			r.ch(string(m.ID)) <- line
		}
	}()
	r.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	r.wait(t, `"init"`)
	r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawE2E) ch(id string) chan string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.byID[id]
	if !ok {
		c = make(chan string, 64)
		r.byID[id] = c
	}
	return c
}

func (r *rawE2E) send(t *testing.T, line string) {
	t.Helper()
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// wait returns the next line the guard wrote with the given id (as JSON).
func (r *rawE2E) wait(t *testing.T, id string) string {
	t.Helper()
	select {
	case l := <-r.ch(id):
		return l
	case <-time.After(e2eTimeout):
		t.Fatalf("no answer for id %s\n%s", id, r.stderr)
	}
	return ""
}

func rawCall(id, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}
