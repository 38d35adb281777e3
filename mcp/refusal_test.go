package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// TestRequestRefusalsAreResults: a well-formed tools/call the guard cannot
// check as it stands (a relative path, a subject argument of the wrong
// type, a task-augmented call) is refused as the ticket's refusals are: a
// tool result with isError the model can read and act on, and a receipt
// (check request). A call that is not a well-formed request (arguments
// not an object, a name not a string) is a JSON-RPC error and no receipt.
// Neither reaches the server.
func TestRequestRefusalsAreResults(t *testing.T) {
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "request refusals")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.log")
	log, err := chain.Open(path, rk, "test")
	if err != nil {
		t.Fatal(err)
	}
	r := startRaw(t, func(c *Config) { c.Receipts = log; c.Profile = Filesystem() }, "tools=read_file,write_file")
	refusals := []struct{ params, want string }{
		{`{"name":"read_file","arguments":{"path":"a.txt"}}`, `path \"a.txt\" is relative`},
		{`{"name":"read_file","arguments":{"path":"~/a.txt"}}`, "give an absolute path"},
		{`{"name":"read_file","arguments":{"path":7}}`, `argument \"path\" must be a string`},
		{`{"name":"write_file","task":{"ttl":1000},"arguments":{"path":"` + r.dir + `/x"}}`, "call the tool without a task"},
	}
	for i, tc := range refusals {
		r.agentSays(t, `{"jsonrpc":"2.0","id":`+string(rune('1'+i))+`,"method":"tools/call","params":`+tc.params+`}`)
		got := r.agentGets(t)
		if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, RefusalPrefix+"request: ") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: agent got %s", tc.params, got)
		}
	}
	for i, params := range []string{`{"name":"read_file","arguments":[1]}`, `{"name":7}`} {
		r.agentSays(t, `{"jsonrpc":"2.0","id":`+string(rune('5'+i))+`,"method":"tools/call","params":`+params+`}`)
		if c := errorCode(t, r.agentGets(t), string(rune('5'+i))); c != codeInvalidParams {
			t.Errorf("%s: code %d", params, c)
		}
	}
	r.sentinel(t)
	log.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	for e, err := range chain.Scan(f) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Record.Kind.String()+" "+e.Record.Check)
	}
	if want := "refused request,refused request,refused request,refused request"; strings.Join(got, ",") != want {
		t.Errorf("receipts %q, want %q", strings.Join(got, ","), want)
	}
}
