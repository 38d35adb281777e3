//go:build unix

package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGateReleasedByPing: the gate keeps a move_file in flight alone
// until the server answers its id. A request the agent sends with the
// same id (a ping) is answered by the server at once; taken for the
// move's answer, it would let the reads queued behind the move be checked
// before the move ran, and run after it: none may leak.
func TestGateReleasedByPing(t *testing.T) {
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

// TestServerDropsCheckedCall: calls the server's SDK would drop without
// an answer (its zod schemas are strict, its ids integers, its JSON.parse
// knows no Unicode whitespace) must not hold the gate: were one checked,
// charged and forwarded, it would never run, and every later call would
// wait Config.GateTimeout and fail, for the rest of the session.
func TestServerDropsCheckedCall(t *testing.T) {
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
