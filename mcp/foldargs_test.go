package mcp

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestArgsFoldNeverReachServer: arguments holding, in an object at any
// depth, two member names equal under case folding (the rule of the args
// digest) get a JSON-RPC invalid-params error, even after a number the
// digest refuses, and a server decoding with encoding/json never sees
// them; names that only look alike, and names of different objects, are
// forwarded, as are arguments the digest refuses for another reason when
// the ticket has no args caveat.
func TestArgsFoldNeverReachServer(t *testing.T) {
	r := startRawAgent(t, nil, "tools=read_file")
	srv := &jsonServer{}
	go srv.serve(r.pp.server, r.pp.toAgent)
	path := `"path":"` + r.dir + `/x"`
	for i, tc := range []struct {
		args    string
		forward bool
	}{
		{`{` + path + `,"opts":{"link":"a","lin\u212a":"b"}}`, false},
		{`{` + path + `,"a":{"b":{"c":{"Key":1,"kEY":2}}}}`, false},
		{`{` + path + `,"list":[0,{"s":1,"\u017f":2}]}`, false},
		{`{` + path + `,"n":1e400,"o":{"k":1,"K":2}}`, false},
		{`{` + path + `,"o":{"a":1,"a":2}}`, false},
		{`{` + path + `,"x":1,"X":2}`, false},
		{`{` + path + `,"o":{"ss":1,"\u00df":2,"i":3,"\u0131":4},"p":[{"k":1},{"K":2}]}`, true},
		{`{` + path + `,"n":1e400}`, true},
	} {
		id := strconv.Itoa(i + 1)
		write(t, r.pp.toProxy, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"read_file","arguments":`+tc.args+`}}`+"\n")
		got := r.agentGets(t)
		if tc.forward {
			if strings.Contains(got, `"error"`) {
				t.Errorf("%s: %s", tc.args, got)
			}
			continue
		}
		if c := errorCode(t, got, id); c != codeInvalidParams || !strings.Contains(got, "equal under case folding") {
			t.Errorf("%s: agent got %s, want an invalid-params error naming case folding", tc.args, got)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(srv.calls()); n != 2 {
		t.Errorf("the server ran %d calls, want the 2 allowed ones: %q", n, srv.calls())
	}
}
