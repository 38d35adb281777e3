//go:build unix

package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestE2ECancelledIDReleasesCall is TestCancelledIDReleasesCall against
// the real filesystem server: the agent stops reading for a moment (so the
// guard's writer to it blocks and the server's answers wait in the pipe),
// sends an unknown method with id 5, cancels it, and sends a tools/call
// with id 5. The server answers the unknown method with -32601 before it
// reads the cancellation; taken for the call's answer, it would release
// the call's reservation though the server runs the call, and a calls=1
// ticket would read as many files as the agent likes.
func TestE2ECancelledIDReleasesCall(t *testing.T) {
	e := e2eFromEnv(t)
	ticket := e.mint(t, "tools=read_text_file", "paths="+e.allowed+"/", "until=10m", "calls=1")
	ticketFile := filepath.Join(t.TempDir(), "ticket")
	if err := os.WriteFile(ticketFile, []byte(ticket+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(e.bin, "mcp", "--ticket-file", ticketFile, "--key", filepath.Join(e.keys, "root.key.pub"),
		"--store", filepath.Join(t.TempDir(), "store.db"), "--server-name", "fs", "--", e.node, e.entry, e.ws)
	stderr := &e2eBuffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
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
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("guard and server stderr:\n%s", stderr)
		}
	})
	var mu sync.Mutex
	resume := make(chan struct{})
	paused := false // the agent does not read until resume is closed
	lines := make(chan string, 256)
	go func() {
		br := bufio.NewReaderSize(out, 4096)
		for {
			mu.Lock()
			p := paused
			mu.Unlock()
			if p {
				<-resume
			}
			line, err := br.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	send := func(line string) {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	waitID := func(id string) string {
		deadline := time.After(60 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("guard closed its output\n%s", stderr)
				}
				var m struct {
					ID json.RawMessage `json:"id"`
				}
				json.Unmarshal([]byte(l), &m)
				if string(m.ID) == id {
					return l
				}
			case <-deadline:
				t.Fatalf("no answer for %s\n%s", id, stderr)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	waitID(`"init"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	read := func(id string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "tools/call",
			"params": map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": filepath.Join(e.allowed, "a.txt")}}})
		return string(b)
	}

	mu.Lock()
	paused = true
	mu.Unlock()
	// Enough answers to fill the pipe to the agent (64 KiB).
	for i := range 3000 {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"ping-%d","method":"ping"}`, i))
	}
	time.Sleep(time.Second)
	send(`{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`)
	time.Sleep(300 * time.Millisecond) // the server answers it now
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	send(read("5"))
	time.Sleep(2 * time.Second) // the server runs the read and answers
	mu.Lock()
	paused = false
	mu.Unlock()
	close(resume)
	first := waitID("5")
	second := waitID("5")
	t.Logf("answers to id 5:\n%.200s\n%.200s", first, second)
	// However the answers interleave, the ticket allows one read: the
	// reused id is refused while the cancelled request awaits its answer,
	// so no answer to another request can give a call's budget back.
	ran := 0
	for _, a := range []string{first, second, waitRead(t, send, waitID, read, "6"), waitRead(t, send, waitID, read, "7")} {
		if strings.Contains(a, "alpha") {
			ran++
		}
	}
	if ran > 1 {
		t.Errorf("a calls=1 ticket read the file %d times", ran)
	}
}

func waitRead(t *testing.T, send func(string), waitID func(string) string, read func(string) string, id string) string {
	t.Helper()
	send(read(id))
	return waitID(id)
}
