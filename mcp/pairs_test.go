package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// pairCalls is how many tools/call round trips each side of a pair makes,
// in ABBA rounds of pairBatch calls per side and letter.
const (
	pairCalls = 2000
	pairBatch = 50
)

// TestPairsCallOverhead measures what the proxy adds to a tools/call (the
// target: at most 0.1 ms, median of 2,000 calls, no receipts): the same SDK
// client calls the same in-test server's read_file through the proxy (A)
// and straight over pipes (B), interleaved in ABBA rounds in one process,
// for an HMAC, an Ed25519 and a DPoP-bound ticket. It reports the median of
// the rounds' differences of medians, their range, and each side's median.
// It runs only with TICKETTOOL_PAIRS=1:
//
//	TICKETTOOL_PAIRS=1 go test -run TestPairsCallOverhead -count=1 -v ./mcp/
func TestPairsCallOverhead(t *testing.T) {
	if os.Getenv("TICKETTOOL_PAIRS") != "1" {
		t.Skip("a paired measurement: set TICKETTOOL_PAIRS=1")
	}
	hmacRoot, err := fixedkey.Signing(key.HMACSHA256, "root", "pairs hmac root")
	if err != nil {
		t.Fatal(err)
	}
	edRoot, err := fixedkey.Signing(key.Ed25519, "root", "pairs ed25519 root")
	if err != nil {
		t.Fatal(err)
	}
	hk, err := fixedkey.Holder(key.Ed25519, "pairs holder")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		root    *key.Signing
		holder  *key.Holder
		caveats []string
	}{
		{"hmac", hmacRoot, nil, nil},
		{"ed25519", edRoot, nil, nil},
		{"ed25519+dpop", edRoot, hk, []string{"holder=" + hk.Thumbprint()}},
	}
	cs := directSession(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := start(t, options{version: sdk.SupportedProtocolVersions()[0], edit: func(cfg *Config, s *setup) {
				keys, err := token.NewKeyring(c.root.Verifying())
				if err != nil {
					t.Fatal(err)
				}
				// Two blocks, as a delegated ticket has: the root's and an
				// attenuation.
				tk := mint(t, c.root, append([]string{"paths=" + s.dir, "tools=read_file,write_file",
					"calls=100000000", "until=24h"}, c.caveats...)...)
				cfg.Ticket = attenuate(t, tk, "tools=read_file", "until=12h")
				cfg.Keys, cfg.Holder = keys, c.holder
			}})
			f := filepath.Join(s.dir, "a.txt")
			if err := os.WriteFile(f, []byte("pairs"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := measurePairs(t, s.cs, cs, f)
			t.Logf("%s: proxy adds %s per call (median of %d ABBA rounds, range %s to %s); median call %s through the proxy, %s direct; the decision alone %s",
				c.name, r.diff, r.rounds, r.lo, r.hi, r.a, r.b, decisionCost(t, s.p, f))
		})
	}
}

// directSession connects an SDK client straight to the in-test server.
func directSession(t testing.TB) *sdk.ClientSession {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	t.Cleanup(func() { cr.Close(); sw.Close(); sr.Close(); cw.Close() })
	ctx := context.Background()
	ss, err := newFakeFS(&recorder{}).Connect(ctx, &sdk.IOTransport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type pairResult struct {
	diff, lo, hi, a, b time.Duration
	rounds             int
}

// measurePairs makes pairCalls calls through a and through b, in ABBA
// rounds, after a warm-up of one round.
func measurePairs(t *testing.T, a, b *sdk.ClientSession, file string) pairResult {
	params := &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": file}}
	batch := func(cs *sdk.ClientSession, into []time.Duration) []time.Duration {
		for range pairBatch {
			start := time.Now()
			res, err := cs.CallTool(context.Background(), params)
			into = append(into, time.Since(start))
			if err != nil || res.IsError {
				t.Fatalf("call: %v %v", err, res)
			}
		}
		return into
	}
	batch(a, nil)
	batch(b, nil)
	var allA, allB, diffs []time.Duration
	for range pairCalls / (2 * pairBatch) {
		var ra, rb []time.Duration
		ra = batch(a, ra)
		rb = batch(b, rb)
		rb = batch(b, rb)
		ra = batch(a, ra)
		diffs = append(diffs, median(ra)-median(rb))
		allA, allB = append(allA, ra...), append(allB, rb...)
	}
	if len(allA) != pairCalls {
		panic(fmt.Sprint("measurePairs: ", len(allA), " calls"))
	}
	slices.Sort(diffs)
	return pairResult{diff: median(diffs), lo: diffs[0], hi: diffs[len(diffs)-1],
		a: median(allA), b: median(allB), rounds: len(diffs)}
}

// decisionCost is the median time of the proxy's own work on one allowed
// call, without the transport: deciding it (path resolution, the DPoP
// proof, the guard and its store) and settling it.
func decisionCost(t *testing.T, p *Proxy, file string) time.Duration {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":` +
		strconv.Quote(file) + `}}}`)
	m, err := parseMessage(line, true)
	if err != nil {
		t.Fatal(err)
	}
	params, err := agentParams(m)
	if err != nil {
		t.Fatal(err)
	}
	c, answer := p.parseCall(m, params, line)
	if c == nil {
		t.Fatalf("parseCall: %s", answer)
	}
	ds := make([]time.Duration, 0, pairCalls)
	for range pairCalls {
		start := time.Now()
		v := p.decide(p.state(), c)
		if !v.forward {
			t.Fatalf("refused: %s", v.answer)
		}
		p.settle(v.decision, guard.Capture)
		ds = append(ds, time.Since(start))
	}
	return median(ds)
}

// median sorts ds and returns its median.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}
