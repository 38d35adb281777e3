package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// TestOperationKeyRaw: a tools/call under an operation key (OperationMeta)
// is forwarded once; a repeat while it runs is refused as in flight; once
// answered, a repeat gets the answer's result member byte for byte under
// its own id and the server sees nothing; the key with another call is an
// isError result; a key that is not a valid key is invalid params; a call
// the server refused as invalid (released) frees its key.
func TestOperationKeyRaw(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file")
	call := func(id int, key, path string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"%s/%s"},"_meta":{%q:%q}}}`,
			id, r.dir, path, OperationMeta, key)
	}
	r.agentSays(t, call(1, "k-1", "a"))
	if got := r.serverGets(t); got != call(1, "k-1", "a") {
		t.Fatalf("server got %s", got)
	}
	r.agentSays(t, call(2, "k-1", "a"))
	if got := r.agentGets(t); !strings.Contains(got, `"id":2,`) || !strings.Contains(got, "is still running") || !strings.Contains(got, `"isError":true`) {
		t.Fatalf("repeat in flight: %s", got)
	}
	result := `{ "content" : [{"type":"text","text":"a\u00e9 <&>"}], "x":[1e3] }`
	answer := `{"jsonrpc":"2.0","id":1,"result":` + result + `}`
	r.serverSays(t, answer)
	if got := r.agentGets(t); got != answer {
		t.Fatalf("agent got %s", got)
	}
	r.agentSays(t, call(3, "k-1", "a"))
	if got, want := r.agentGets(t), `{"jsonrpc":"2.0","id":3,"result":`+result+`}`; got != want {
		t.Fatalf("repeat: %s, want %s", got, want)
	}
	r.agentSays(t, call(4, "k-1", "b"))
	if got := r.agentGets(t); !strings.Contains(got, "was used for another request") || !strings.Contains(got, `"isError":true`) {
		t.Fatalf("the key with another call: %s", got)
	}
	r.agentSays(t, call(5, "a b", "a"))
	if got := r.agentGets(t); errorCode(t, got, "5") != codeInvalidParams || !strings.Contains(got, OperationMeta) {
		t.Fatalf("a key with a space: %s", got)
	}
	r.sentinel(t) // the server saw none of the repeats

	r.agentSays(t, call(6, "k-2", "c"))
	r.serverGets(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"no"}}`)
	r.agentGets(t)
	r.agentSays(t, call(7, "k-2", "c"))
	if got := r.serverGets(t); got != call(7, "k-2", "c") {
		t.Fatalf("a released call's key was not free again: server got %s", got)
	}
}
