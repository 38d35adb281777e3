package mcp

import (
	"strings"
	"testing"
)

// A cancelled request keeps its id until the server answers it, so no
// call can take the id and be paired with the earlier request's answer.

// TestCancelledIDReleasesCall: the agent frees an id by cancelling a
// pending non-call request (an unknown method, which the server answers
// with -32601 at once, before it reads the cancellation), then reuses the
// id for a tools/call. The server's late -32601 to the first request is
// taken for the call's answer: the call's reservation is released, the
// call runs all the same, and a calls=1 ticket is allowed again. The
// agent delays the first answer simply by not reading its input for a
// moment (the proxy's writer to the agent blocks, and the server's
// answers wait in the pipe). Here the test plays an honest server that
// answered in that order.
func TestCancelledIDReleasesCall(t *testing.T) {
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

// TestCancelledIDUnfilteredDirs: the same freed id makes the real
// answer of a list_allowed_directories call arrive after its pending entry
// was consumed by the earlier request's answer, so it reaches the agent
// without being cut down to the ticket's paths.
func TestCancelledIDUnfilteredDirs(t *testing.T) {
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
