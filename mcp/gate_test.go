package mcp

import (
	"strings"
	"testing"
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
