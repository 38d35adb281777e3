package mcp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Memory the agent can make the guard hold: bounded by bytes, not only by
// counts.

// TestQueueMemory: calls waiting at the gate are kept whole. With a
// write the server never answers in flight (a real server drops a call
// with an extra top-level member, which the guard forwards), the agent
// can queue maxQueuedCalls calls of up to MaxMessageBytes each: about
// 1024 x 10 MiB, several times over once parsed.
func TestQueueMemory(t *testing.T) {
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

// TestIDTableMemory: the id tables bound how many ids they hold,
// not how long an id is. An id may be as long as a message, and the
// refused table keeps one per malformed call (no receipt, no server
// needed): maxTracked x 10 MiB.
func TestIDTableMemory(t *testing.T) {
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
