package mcp

import (
	"strings"
	"testing"
	"time"
)

// Request ids the agent reuses or that a JavaScript server reads as
// another: the gate and the id tables must pair each answer with the
// request it answers.

// TestGateIDReuse: the gate must count only the server's answer to
// the call it forwarded. An agent request of another method with the same
// id is answered by the server at once; taken for the call's answer, it
// lets the calls queued behind a move_file be checked while the move runs.
func TestGateIDReuse(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file,move_file")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"move_file","arguments":{"source":"`+r.dir+`/d","destination":"`+r.dir+`/e"}}}`)
	r.serverGets(t)
	r.reusePing(t)
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/e/l/secret"}}}`)
	// The move is still running: the read must not reach the server.
	select {
	case got := <-r.toServer:
		t.Fatalf("server got a call while the move was in flight: %s", got)
	case <-time.After(500 * time.Millisecond):
	}
	r.sentinel(t)
}

// reusePing sends a ping with id 1 while a call with id 1 is in flight.
// A guard may refuse it (the agent gets an error); if it forwards it, the
// server answers it at once, as the reference server does.
func (r *rawSetup) reusePing(t *testing.T) {
	t.Helper()
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	select {
	case got := <-r.toAgent:
		if !strings.Contains(got, `"error"`) {
			t.Fatalf("agent got %s", got)
		}
	case <-r.toServer:
		r.serverSays(t, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		r.agentGets(t)
	case <-time.After(20 * time.Second):
		t.Fatal("the ping went nowhere")
	}
}

// TestDirsIDReuse: list_allowed_directories' answer is cut down by
// id. The answer to a ping with the same id takes the id out of the
// table, and the real answer then passes unfiltered.
func TestDirsIDReuse(t *testing.T) {
	r := startRaw(t, nil, "tools=list_allowed_directories")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`)
	r.serverGets(t)
	r.reusePing(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Allowed directories:\n/\n/etc/secret-project"}]}}`)
	if got := r.agentGets(t); strings.Contains(got, "secret-project") {
		t.Fatalf("agent got the server's directories unfiltered: %s", got)
	}
}

// TestIDAliasJS: the guard tells ids apart exactly; a JavaScript
// server reads every number as a double, so 2^53 and 2^53+1 are one id
// there. Ids outside ±(2^53 - 1) are refused, as requests and as the
// requestId of a cancellation, so none can alias a call in flight.
func TestIDAliasJS(t *testing.T) {
	r := startRaw(t, nil, "tools=write_file")
	r.agentSays(t, `{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"`+r.dir+`/x"}}}`)
	if c := errorCode(t, r.agentGets(t), "null"); c != codeInvalidRequest {
		t.Fatalf("code %d", c)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":9007199254740991,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"`+r.dir+`/x"}}}`)
	r.serverGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}`)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740991.0}}`)
	select {
	case got := <-r.toServer:
		t.Fatalf("a cancellation of the call in flight (as JavaScript reads it) was forwarded: %s", got)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestGateIDAlias: a ping whose id a JavaScript server reads as the
// id of the move in flight (2^53 + 2 is 2^53 + 2 there, but 2^53 + 1 is
// 2^53) is refused, so its answer cannot release the gate.
func TestGateIDAlias(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file,move_file")
	r.agentSays(t, `{"jsonrpc":"2.0","id":9007199254740991,"method":"tools/call","params":{"name":"move_file","arguments":{"source":"`+r.dir+`/d","destination":"`+r.dir+`/e"}}}`)
	r.serverGets(t)
	for _, id := range []string{"9007199254740993", "9007199254740991.0", "9.007199254740991e15", `"\ud800"`, `"` + strings.Repeat("i", 300) + `"`} {
		r.agentSays(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		if got := r.agentGets(t); !strings.Contains(got, `"error"`) {
			t.Fatalf("ping %s: agent got %s", id, got)
		}
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/e/l/secret"}}}`)
	select {
	case got := <-r.toServer:
		t.Fatalf("server got a call while the move was in flight: %s", got)
	case <-time.After(500 * time.Millisecond):
	}
}
