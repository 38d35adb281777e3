//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// callKeyed makes a tools/call of count with arguments args under the
// operation key key (mcp.OperationMeta) and returns the guard's answer.
func (g *guardProc) callKeyed(t *testing.T, key, args string) string {
	t.Helper()
	g.nextID++
	fmt.Fprintf(g.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":%s,`+
		`"_meta":{"io.github.tickettool/operation":%q}}}`+"\n", g.nextID, args, key)
	want := fmt.Sprintf(`"id":%d,`, g.nextID)
	for {
		select {
		case line, ok := <-g.lines:
			if !ok {
				t.Fatalf("call under %s: the guard's output ended\n%s", key, g.stderr)
			}
			if strings.Contains(line, want) {
				return line
			}
		case <-time.After(reloadTimeout):
			t.Fatalf("call under %s: no answer\n%s", key, g.stderr)
		}
	}
}

func resultOf(t *testing.T, line string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil || m["result"] == nil {
		t.Fatalf("not a result: %s (%v)", line, err)
	}
	return string(m["result"])
}

// TestOperationKeyAfterKill: a call under an operation key runs, the
// guard is killed (SIGKILL) after the server answered, and a new guard on
// the same store answers the same key with the same result, byte for
// byte, without calling the server again: the server ran once, the budget
// was charged once. The key with other arguments is refused as another
// request.
func TestOperationKeyAfterKill(t *testing.T) {
	bin := guardBinary(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "root.key")
	cliOK(t, "keygen", "--alg", "ed25519", "--out", key)
	ticket := filepath.Join(dir, "ticket")
	if err := os.WriteFile(ticket, []byte(cliOK(t, "mint", "--key", key, "tools=count", "calls=5", "until=1h")), 0o600); err != nil {
		t.Fatal(err)
	}
	guardArgs := []string{"mcp", "--ticket-file", ticket, "--key", key + ".pub", "--", "fakemcp"}
	g := startGuard(t, bin, dir, guardArgs...)
	first := g.callKeyed(t, "op-1", `{"n":1}`)
	if !strings.Contains(first, `"text":"ran count 1"`) {
		t.Fatalf("first call: %s\n%s", first, g.stderr)
	}
	g.cmd.Process.Kill()
	g.cmd.Wait()

	g = startGuard(t, bin, dir, guardArgs...)
	again := g.callKeyed(t, "op-1", `{"n":1}`)
	if resultOf(t, again) != resultOf(t, first) {
		t.Fatalf("repeat after a restart: %s, want the result of %s", again, first)
	}
	changed := g.callKeyed(t, "op-1", `{"n":2}`)
	if !strings.Contains(changed, `"isError":true`) || !strings.Contains(changed, "was used for another request") {
		t.Fatalf("the key with other arguments: %s", changed)
	}
	if line := g.callKeyed(t, "op-2", `{"n":2}`); !strings.Contains(line, `"text":"ran count 2"`) {
		t.Fatalf("a new key: %s", line)
	}
	g.close(t)
	calls, _ := os.ReadFile(filepath.Join(dir, "fakemcp.calls"))
	if n := bytes.Count(calls, []byte("\n")); n != 2 {
		t.Fatalf("the server ran count %d times, want 2 (one per key)", n)
	}
	spent := cliOK(t, "spent", "--key", key+".pub", "--store", filepath.Join(dir, "store.db"), "@"+ticket)
	if !strings.Contains(spent, "calls limit 5 spent 2 ") {
		t.Fatalf("spent: %s, want 2 calls (the repeat charged nothing)", spent)
	}
}
