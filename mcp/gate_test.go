package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/store/sqlitestore"
	"github.com/tickettool/tickettool/verify"
)

// TestGateOrdersCalls: a call that may change the filesystem is in flight
// alone. Reads after it are checked only once the server answered it, and
// it waits for the reads before it.
func TestGateOrdersCalls(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file,write_file,move_file")
	call := func(id, tool, path string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"path":"` + r.dir + path + `"}}}`
	}
	answer := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]}}` }

	r.agentSays(t, call("1", "read_file", "/a"))
	r.agentSays(t, call("2", "read_file", "/b"))
	if got := r.serverGets(t); !strings.Contains(got, `"id":1`) {
		t.Fatalf("server got %s", got)
	}
	if got := r.serverGets(t); !strings.Contains(got, `"id":2`) {
		t.Fatalf("server got %s", got)
	}
	// The write waits for both reads; the read after it waits for it.
	r.agentSays(t, call("3", "write_file", "/a"))
	r.agentSays(t, call("4", "read_file", "/a"))
	r.sentinel(t) // nothing forwarded: ping passes, calls do not
	r.serverSays(t, answer("1"))
	r.agentGets(t)
	r.sentinel(t)
	r.serverSays(t, answer("2"))
	r.agentGets(t)
	if got := r.serverGets(t); !strings.Contains(got, `"id":3`) {
		t.Fatalf("server got %s, want the write", got)
	}
	r.sentinel(t)
	r.serverSays(t, answer("3"))
	r.agentGets(t)
	if got := r.serverGets(t); !strings.Contains(got, `"id":4`) {
		t.Fatalf("server got %s, want the read", got)
	}
	r.serverSays(t, answer("4"))
	r.agentGets(t)
}

// TestTaskCallRefused: a task-augmented call returns before it runs, so
// the gate could not hold later calls back: it is refused, with a tool
// result saying to call without a task.
func TestTaskCallRefused(t *testing.T) {
	r := startRaw(t, nil, "tools=write_file")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","task":{"ttl":1000},"arguments":{"path":"`+r.dir+`/x"}}}`)
	if got := r.agentGets(t); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "without a task") {
		t.Fatalf("agent got %s", got)
	}
	r.sentinel(t)
}

// TestDirsAnswerUnreadable: an answer to list_allowed_directories that is
// not in the form the guard can cut down is replaced, never passed on.
func TestDirsAnswerUnreadable(t *testing.T) {
	r := startRaw(t, nil, "tools=list_allowed_directories")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`)
	r.serverGets(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Directories: /etc"}]}}`)
	if got := r.agentGets(t); strings.Contains(got, "/etc") || !strings.Contains(got, `"isError":true`) {
		t.Fatalf("agent got %s", got)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`)
	r.serverGets(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Allowed directories:\n/\n`+r.dir+`/sub\n/etc"}],"structuredContent":{"content":"x"}}}`)
	got := r.agentGets(t)
	want := `Allowed directories:\n` + r.dir + `\n` + r.dir + `/sub`
	if !strings.Contains(got, `"text":"`+want+`"`) || strings.Contains(got, "/etc") || !strings.Contains(got, `"structuredContent":{"content":"`+want+`"}`) {
		t.Fatalf("agent got %s", got)
	}
}

// TestSettleByAnswer: an allowed call's budget is reserved until the
// server answers: an error showing the call never ran gives it back, a
// result (an isError one too) or any other error spends it.
func TestSettleByAnswer(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file", "calls=1")
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"` + r.dir + `/a"}}}`
	}
	for i, answer := range []string{
		`"error":{"code":-32602,"message":"bad params"}`,
		`"error":{"code":-32601,"message":"no such method"}`,
		`"error":{"code":-32600,"message":"invalid"}`,
		`"error":{"code":-32700,"message":"parse"}`,
	} {
		id := fmt.Sprint(i + 1)
		r.agentSays(t, call(id))
		if got := r.serverGets(t); !strings.Contains(got, `"id":`+id) {
			t.Fatalf("call %s: server got %s (the budget was not given back)", id, got)
		}
		r.serverSays(t, `{"jsonrpc":"2.0","id":`+id+`,`+answer+`}`)
		r.agentGets(t)
	}
	// A result, even an isError one, spends the budget.
	r.agentSays(t, call("10"))
	select {
	case got := <-r.toAgent:
		t.Fatalf("agent got %s; log:\n%s", got, r.log)
	case <-r.toServer:
	}
	r.serverSays(t, `{"jsonrpc":"2.0","id":10,"result":{"content":[],"isError":true}}`)
	r.agentGets(t)
	r.agentSays(t, call("11"))
	if got := r.agentGets(t); !strings.Contains(got, "budget of 1 calls is spent") {
		t.Fatalf("agent got %s", got)
	}
	// Another error (the call may have run) spends it too.
	r2 := startRaw(t, nil, "tools=read_file", "calls=1")
	r.dir = r2.dir
	r2.agentSays(t, call("1"))
	r2.serverGets(t)
	r2.serverSays(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal"}}`)
	r2.agentGets(t)
	r2.agentSays(t, call("2"))
	if got := r2.agentGets(t); !strings.Contains(got, "budget of 1 calls is spent") {
		t.Fatalf("agent got %s", got)
	}
}

// TestTwoGuardsShareStore: two guards on one SQLite store (a restart, a
// second conversation, a subagent's own guard) share the ticket's budget:
// a calls=2 ticket is allowed twice in all, not twice each.
func TestTwoGuardsShareStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	open := func(c *Config) {
		st, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		c.Store = st
	}
	sk, keys := rootKey(t)
	tk := mint(t, sk, "tools=read_file", "calls=2")
	edit := func(c *Config) { open(c); c.Ticket, c.Keys = tk, keys }
	a, b := startRaw(t, edit), startRaw(t, edit)
	call := func(r *rawSetup, id string) string {
		r.agentSays(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"read_file","arguments":{}}}`)
		select {
		case got := <-r.toAgent:
			return got
		case got := <-r.toServer:
			r.serverSays(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
			r.agentGets(t)
			return "forwarded " + got
		}
	}
	for i, r := range []*rawSetup{a, b} {
		if got := call(r, fmt.Sprint(i+1)); !strings.HasPrefix(got, "forwarded") {
			t.Fatalf("call %d: %s", i+1, got)
		}
	}
	for i, r := range []*rawSetup{a, b} {
		if got := call(r, fmt.Sprint(i+3)); !strings.Contains(got, "budget of 2 calls is spent") {
			t.Fatalf("call %d: %s", i+3, got)
		}
	}
}

// TestUnansweredCallCaptured: a call the server never answers before the
// session ends counts as spent, with a settlement receipt.
func TestUnansweredCallCaptured(t *testing.T) {
	sk, keys := rootKey(t)
	tk := mint(t, sk, "tools=read_file", "calls=1")
	store := guard.NewMemoryStore()
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "unanswered")
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "r.log")
	recs, err := chain.Open(logPath, rk, "tickettool")
	if err != nil {
		t.Fatal(err)
	}
	defer recs.Close()
	pp := newPipes()
	p, err := New(Config{Ticket: tk, Keys: keys, Now: fixedNow, Log: io.Discard, Store: store, Receipts: recs})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Serve(context.Background(), pp.agentIn, pp.agentOut, pp.serverIn, pp.serverOut) }()
	go io.Copy(io.Discard, pp.fromProxy)
	write(t, pp.toProxy, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{}}}`+"\n")
	br := bufio.NewReader(pp.server)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	pp.toAgent.Close() // the server's output ends without an answer
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	d, _ := verify.Verify(tk, &caveat.Request{Tool: "read_file", Op: "invoke"}, keys, t0, nil)
	use, err := store.Spent(context.Background(), d.BlockIDs[0], d.Budgets)
	if err != nil || len(use) != 1 || use[0].Spent != 1 {
		t.Fatalf("spent %+v %v", use, err)
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for e, err := range chain.Scan(bytes.NewReader(data)) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Record.Kind.String())
	}
	if got := strings.Join(kinds, ","); got != "allowed,captured" {
		t.Fatalf("receipts %s, want allowed,captured", got)
	}
}
