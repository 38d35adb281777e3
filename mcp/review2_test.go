package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// Regression tests from security review 2 of the durable-store
// integration (issue #14). Each FAILS on main as of 78c95f8.

// TestReviewCancelledIDReleasesCall: the agent frees an id by cancelling a
// pending non-call request (an unknown method, which the server answers
// with -32601 at once, before it reads the cancellation), then reuses the
// id for a tools/call. The server's late -32601 to the first request is
// taken for the call's answer: the call's reservation is released, the
// call runs all the same, and a calls=1 ticket is allowed again. The
// agent delays the first answer simply by not reading its input for a
// moment (the proxy's writer to the agent blocks, and the server's
// answers wait in the pipe). Here the test plays an honest server that
// answered in that order.
func TestReviewCancelledIDReleasesCall(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file", "calls=1")
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"` + r.dir + `/a"}}}`
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`)
	r.serverGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	r.serverGets(t)
	// The cancelled request stays pending until its answer comes: its id
	// is not free, so no call can take it.
	r.agentSays(t, call("5"))
	if got := r.agentGets(t); !strings.Contains(got, "in use by a request still awaiting its answer") {
		t.Fatalf("agent got %s", got)
	}
	// The server answered the unknown method before it read the
	// cancellation; once that answer is in, the id is free again.
	r.serverSays(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`)
	r.agentGets(t)
	r.agentSays(t, call("5"))
	if got := r.serverGets(t); !strings.Contains(got, "tools/call") {
		t.Fatalf("server got %s", got)
	}
	r.serverSays(t, `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"secret"}]}}`)
	r.agentGets(t)
	// read_file ran once: the calls=1 budget is spent.
	r.agentSays(t, call("6"))
	select {
	case got := <-r.toServer:
		t.Fatalf("a second call reached the server on a calls=1 ticket: %s", got)
	case got := <-r.toAgent:
		if !strings.Contains(got, "budget of 1 calls is spent") {
			t.Fatalf("agent got %s", got)
		}
	}
}

// TestReviewCancelledIDUnfilteredDirs: the same freed id makes the real
// answer of a list_allowed_directories call arrive after its pending entry
// was consumed by the earlier request's answer, so it reaches the agent
// without being cut down to the ticket's paths.
func TestReviewCancelledIDUnfilteredDirs(t *testing.T) {
	r := startRaw(t, nil, "tools=list_allowed_directories")
	r.agentSays(t, `{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`)
	r.serverGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	r.serverGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`)
	if got := r.agentGets(t); !strings.Contains(got, "in use") {
		t.Fatalf("agent got %s", got)
	}
	r.serverSays(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`)
	r.agentGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`)
	r.serverGets(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"Allowed directories:\n/\n/etc/private"}]}}`)
	if got := r.agentGets(t); strings.Contains(got, "/etc/private") {
		t.Fatalf("the server's whole directory list reached the agent: %s", got)
	}
}

// TestReviewSessionEndSettles: a call in flight when the server's output
// ends (it died) will never be answered: its reservation ends with its
// hold, captured, inside the store, and no receipt ever says so. The
// receipt log shows an allowed call with no settlement. Fails on main as
// of 78c95f8.
func TestReviewSessionEndSettles(t *testing.T) {
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "review receipts")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.log")
	log, err := chain.Open(path, rk, "test")
	if err != nil {
		t.Fatal(err)
	}
	r := startRaw(t, func(c *Config) { c.Receipts = log }, "tools=read_file", "calls=1")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/a"}}}`)
	r.serverGets(t)
	r.pp.toAgent.Close() // the server is gone
	time.Sleep(200 * time.Millisecond)
	log.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kinds []string
	for e, err := range chain.Scan(f) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Record.Kind.String())
	}
	if got := strings.Join(kinds, ","); got != "allowed,captured" {
		t.Errorf("receipts %s: the call's settlement is never recorded", got)
	}
}
