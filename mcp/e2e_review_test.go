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

// TestReviewGateReleasedByPing: the gate keeps a move_file in flight alone
// until the server answers its id. But any request the agent sends with
// the same id (a ping, an unknown method) is answered by the server at
// once, and the guard takes that answer for the move's: the reads queued
// behind the move are checked before the move ran, and run after it.
func TestReviewGateReleasedByPing(t *testing.T) {
	e := e2eFromEnv(t)
	r := e.startRaw(t, e.mint(t, "tools=read_text_file,move_file", "paths="+e.allowed+"/", "until=10m"))
	const runs, reads = 20, 20
	// The control: without the ping the gate holds (TestE2EEscapes).
	if n := raceMoveAndReads(t, e, r, "c", runs, reads, false); n != 0 {
		t.Fatalf("control: %d reads leaked without the ping", n)
	}
	if n := raceMoveAndReads(t, e, r, "p", runs, reads, true); n != 0 {
		t.Errorf("%d of %d reads leaked outside/secret", n, runs*reads)
	}
}

func raceMoveAndReads(t *testing.T, e *e2e, r *rawE2E, tag string, runs, reads int, ping bool) int {
	leaks := 0
	for run := range runs {
		src, dst := filepath.Join(e.allowed, fmt.Sprintf("d%s%d", tag, run)), filepath.Join(e.allowed, fmt.Sprintf("e%s%d", tag, run))
		if err := os.Mkdir(src, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(e.outside, filepath.Join(src, "l")); err != nil {
			t.Fatal(err)
		}
		mv := fmt.Sprintf(`"mv%s%d"`, tag, run)
		r.send(t, rawCall(mv, "move_file", map[string]any{"source": src, "destination": dst}))
		if ping {
			r.send(t, `{"jsonrpc":"2.0","id":`+mv+`,"method":"ping"}`)
		}
		for k := range reads {
			r.send(t, rawCall(fmt.Sprintf(`"rd%s%d-%d"`, tag, run, k), "read_text_file", map[string]any{"path": filepath.Join(dst, "l", "secret")}))
		}
		r.wait(t, mv)
		if ping {
			r.wait(t, mv)
		}
		for k := range reads {
			if got := r.wait(t, fmt.Sprintf(`"rd%s%d-%d"`, tag, run, k)); strings.Contains(got, "s3cret") {
				leaks++
			}
		}
	}
	return leaks
}

// TestReviewServerDropsCheckedCall: the guard checks, charges and forwards
// calls that the server's SDK then drops without an answer (its zod
// schemas are strict, its ids integers, its JSON.parse knows no Unicode
// whitespace). The call never runs, yet it holds the gate: every later
// call waits Config.GateTimeout and fails, for the rest of the session.
func TestReviewServerDropsCheckedCall(t *testing.T) {
	e := e2eFromEnv(t)
	for name, form := range map[string]string{
		"extra member": `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"write_file","arguments":{"path":%q,"content":"x"}},"x":1}`,
		"jsonrpc 1.0":  `{"jsonrpc":"1.0","id":"w","method":"tools/call","params":{"name":"write_file","arguments":{"path":%q,"content":"x"}}}`,
		"id 1.5":       `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"write_file","arguments":{"path":%q,"content":"x"}}}`,
		"nbsp":         "\u00a0" + `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"write_file","arguments":{"path":%q,"content":"x"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := e.startRaw(t, e.mint(t, "tools=read_text_file,write_file", "paths="+e.allowed+"/", "until=10m"))
			f := filepath.Join(e.allowed, "dropped-"+strings.ReplaceAll(name, " ", "-"))
			r.send(t, fmt.Sprintf(form, f))
			r.send(t, rawCall(`"r"`, "read_text_file", map[string]any{"path": filepath.Join(e.allowed, "a.txt")}))
			r.send(t, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
			r.wait(t, `"p"`)
			select {
			case got := <-r.ch(`"r"`):
				t.Logf("read answered: %.80s", got)
			case <-time.After(3 * time.Second):
				_, err := os.Stat(f)
				t.Errorf("the write never ran (stat: %v) but holds the gate: the read waits Config.GateTimeout", err)
			}
		})
	}
}

// TestReviewNFCVersionSkewPinned (passes): the guard matches look-alike names with
// golang.org/x/text's NFC (Unicode 15.0.0); node 20's ICU is Unicode 17,
// which composes characters added in 16.0 (here TULU-TIGALARI: U+113C2
// U+113C2 is U+113C5). The guard finds no entry for the decomposed name
// and would check the path as given while the server finds the composed
// link; it is refused only because caveat paths refuse every rune Go's
// tables do not know ("non-printing"). This pins that.
func TestReviewNFCVersionSkewPinned(t *testing.T) {
	e := e2eFromEnv(t)
	if err := os.Symlink(e.outside, filepath.Join(e.allowed, "\U000113C5")); err != nil {
		t.Fatal(err)
	}
	r := e.startRaw(t, e.mint(t, "tools=read_text_file", "paths="+e.allowed+"/", "until=10m"))
	r.send(t, rawCall(`"n"`, "read_text_file", map[string]any{"path": filepath.Join(e.allowed, "\U000113C2\U000113C2", "secret")}))
	got := r.wait(t, `"n"`)
	t.Logf("answer: %s", got)
	if strings.Contains(got, "s3cret") {
		t.Errorf("read outside/secret through a name NFC-equal under Unicode 16: %s", got)
	}
}
