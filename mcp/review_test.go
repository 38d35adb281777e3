package mcp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReviewGateIDReuse: the gate must count only the server's answer to
// the call it forwarded. An agent request of another method with the same
// id is answered by the server at once; taken for the call's answer, it
// lets the calls queued behind a move_file be checked while the move runs.
func TestReviewGateIDReuse(t *testing.T) {
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

// TestReviewDirsIDReuse: list_allowed_directories' answer is cut down by
// id. The answer to a ping with the same id takes the id out of the
// table, and the real answer then passes unfiltered.
func TestReviewDirsIDReuse(t *testing.T) {
	r := startRaw(t, nil, "tools=list_allowed_directories")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":{}}}`)
	r.serverGets(t)
	r.reusePing(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Allowed directories:\n/\n/etc/secret-project"}]}}`)
	if got := r.agentGets(t); strings.Contains(got, "secret-project") {
		t.Fatalf("agent got the server's directories unfiltered: %s", got)
	}
}

// TestReviewQueueMemory: calls waiting at the gate are kept whole. With a
// write the server never answers in flight (a real server drops a call
// with an extra top-level member, which the guard forwards), the agent
// can queue maxQueuedCalls calls of up to MaxMessageBytes each: about
// 1024 x 10 MiB, several times over once parsed.
func TestReviewQueueMemory(t *testing.T) {
	// The write's wait must outlast sending every call, however slow
	// (under -race on a loaded machine, minutes).
	r := startRaw(t, func(c *Config) { c.GateTimeout = time.Hour }, "tools=read_file,write_file")
	r.agentSays(t, `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"write_file","arguments":{"path":"`+r.dir+`/x","content":""}}}`)
	r.serverGets(t) // never answered
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n, size = 32, 4 << 20
	pad := strings.Repeat("A", size)
	for i := range n {
		r.agentSays(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"%s/a","pad":"%s"}}}`, i, r.dir, pad))
		if (i+1)*(size+200) > maxQueuedBytes { // over the bound: answered at once
			if c := errorCode(t, r.agentGets(t), fmt.Sprint(i)); c != codeInvalidRequest {
				t.Fatalf("call %d: code %d", i, c)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("%d queued calls of %d MiB hold %d MiB of heap", n, size>>20, grew>>20)
	if grew > 4*maxQueuedBytes {
		t.Fatalf("queued calls hold %d MiB, over 4 x maxQueuedBytes", grew>>20)
	}
}

// TestReviewIDTableMemory: the id tables bound how many ids they hold,
// not how long an id is. An id may be as long as a message, and the
// refused table keeps one per malformed call (no receipt, no server
// needed): maxTracked x 10 MiB.
func TestReviewIDTableMemory(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n, size = 32, 4 << 20
	for i := range n {
		id := fmt.Sprintf("%d-%s", i, strings.Repeat("I", size))
		r.agentSays(t, `{"jsonrpc":"2.0","id":"`+id+`","method":"tools/call","params":{"name":1}}`)
		r.agentGets(t)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("%d refused ids of %d MiB hold %d MiB of heap", n, size>>20, grew>>20)
	if grew > 64<<20 {
		t.Fatalf("refused ids hold %d MiB; at maxTracked=%d ids of up to %d bytes that is ~%d GiB",
			grew>>20, maxTracked, DefaultMaxMessageBytes, int64(maxTracked)*int64(DefaultMaxMessageBytes)>>30)
	}
}

// TestReviewIDAliasJS: the guard tells ids apart exactly; a JavaScript
// server reads every number as a double, so 2^53 and 2^53+1 are one id
// there. Ids outside ±(2^53 - 1) are refused, as requests and as the
// requestId of a cancellation, so none can alias a call in flight.
func TestReviewIDAliasJS(t *testing.T) {
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

// TestReviewGateIDAlias: a ping whose id a JavaScript server reads as the
// id of the move in flight (2^53 + 2 is 2^53 + 2 there, but 2^53 + 1 is
// 2^53) is refused, so its answer cannot release the gate.
func TestReviewGateIDAlias(t *testing.T) {
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
