package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// TestMultiRoundTripContinues: the retry of a call the server answered
// with an input-required result continues the same admission (one charge,
// one allowed record and one settlement); the state is used once, bound to
// the tool and the arguments' digest, and expires, after which the
// admission counts as spent and a retry is a new call.
func TestMultiRoundTripContinues(t *testing.T) {
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "mrtr receipts")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.log")
	log, err := chain.Open(path, rk, "test")
	if err != nil {
		t.Fatal(err)
	}
	var clock atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(clock.Load())) }
	r := startRaw(t, func(c *Config) { c.Receipts = log; c.Now = now }, "tools=read_file,write_file", "calls=2")
	call := func(id, tool, state string) string {
		st := ""
		if state != "" {
			st = `,"requestState":"` + state + `","inputResponses":{}`
		}
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"path":"` + r.dir + `/a"}` + st + `}}`
	}
	inputRequired := func(id, state string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"input_required","inputRequests":{},"requestState":"` + state + `"}}`
	}
	complete := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[],"resultType":"complete"}}`
	}
	roundTrip := func(ask, answer string) {
		t.Helper()
		r.agentSays(t, ask)
		if got := r.serverGets(t); got != ask {
			t.Fatalf("server got %s, want %s", got, ask)
		}
		r.serverSays(t, answer)
		if got := r.agentGets(t); got != answer {
			t.Fatalf("agent got %s, want %s", got, answer)
		}
	}
	// One call in three requests: the first charges, the retries continue.
	roundTrip(call("1", "read_file", ""), inputRequired("1", "S1"))
	roundTrip(call("2", "read_file", "S1"), inputRequired("2", "S2"))
	roundTrip(call("3", "read_file", "S2"), complete("3"))
	// S1 was used: echoing it again is a new call (the second charge).
	roundTrip(call("4", "read_file", "S1"), inputRequired("4", "S4"))
	// Another tool with S4 is a new call: the budget of two is spent.
	r.agentSays(t, call("5", "write_file", "S4"))
	if got := r.agentGets(t); !strings.Contains(got, "budget of 2 calls is spent") {
		t.Fatalf("agent got %s", got)
	}
	// Past the state's lifetime the retry is new, and refused; the
	// admission waiting for it counts as spent.
	clock.Store(int64(continuationTTL + time.Second))
	r.agentSays(t, call("6", "read_file", "S4"))
	if got := r.agentGets(t); !strings.Contains(got, "budget of 2 calls is spent") {
		t.Fatalf("agent got %s", got)
	}
	r.sentinel(t)
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
	if got, want := strings.Join(kinds, ","), "allowed,captured,allowed,refused,captured,refused"; got != want {
		t.Errorf("receipts %s, want %s", got, want)
	}
}
