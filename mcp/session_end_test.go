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

// TestSessionEndSettles: a call in flight when the server's output ends
// (it died) will never be answered: its reservation ends with its hold,
// captured, and the receipt log must say so, not show an allowed call
// with no settlement.
func TestSessionEndSettles(t *testing.T) {
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "session receipts")
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
