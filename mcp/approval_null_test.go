package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

// TestNullArgumentsDigest: a call whose params.arguments is null carries
// the digest of null, not of {} (spec/CAVEATS.md, "The args digest"):
// through the proxy, a discharge approving {} does not allow it, and one
// approving null does; a call without arguments is {} and the null
// discharge does not allow it.
func TestNullArgumentsDigest(t *testing.T) {
	var tk *token.Ticket
	var dir string
	r := startRaw(t, func(c *Config) {
		sk, _ := rootKey(t)
		cs, err := caveat.ParseAll([]string{"tools=list_allowed_directories", "until=1h"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		tk, err = token.Mint(sk, append(cs, approvalCaveat(t, approverKey(t), 3, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Ticket = tk
		dir = realTempDir(t)
		c.DischargeDir = dir
		c.ApproveTicket = "@t.txt"
	})
	drop := func(json string) {
		t.Helper()
		d := approve(t, tk, untilC(t, 10*time.Minute), argsC(t, json))
		if err := os.WriteFile(filepath.Join(dir, "d.dis"), []byte(d+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	nullCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_allowed_directories","arguments":null}}`
	drop(`{}`)
	r.agentSays(t, nullCall)
	if got := r.agentGets(t); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "args") {
		t.Fatalf("a null call allowed by a discharge for {}: %s", got)
	}
	drop(`null`)
	r.agentSays(t, nullCall)
	if got := r.serverGets(t); got != nullCall {
		t.Fatalf("server got %s, want the null call", got)
	}
	r.serverSays(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	r.agentGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_allowed_directories"}}`)
	if got := r.agentGets(t); !strings.Contains(got, `"isError":true`) {
		t.Fatalf("a call without arguments allowed by a discharge for null: %s", got)
	}
}
