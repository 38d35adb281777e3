package mcp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// The latency the proxy adds to a tools/call: the same SDK client calls the
// same SDK server's read_file directly over pipes, and through the proxy
// (ticket with tools, paths and calls caveats; path resolution; an
// in-memory ledger). Each reports the median latency of one call.

func BenchmarkCallDirect(b *testing.B) {
	dir := realTempDir(b)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	b.Cleanup(func() { cr.Close(); sw.Close(); sr.Close(); cw.Close() })
	ctx := context.Background()
	ss, err := newFakeFS(&recorder{}).Connect(ctx, &sdk.IOTransport{Reader: sr, Writer: sw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	benchCalls(b, cs, dir)
}

func BenchmarkCallThroughGuard(b *testing.B) {
	s := start(b, options{version: sdk.SupportedProtocolVersions()[0], caveats: []string{"tools=read_file", "calls=100000000"}})
	benchCalls(b, s.cs, s.dir)
}

func BenchmarkCallThroughGuardWithReceipts(b *testing.B) {
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "bench receipts")
	if err != nil {
		b.Fatal(err)
	}
	s := start(b, options{version: sdk.SupportedProtocolVersions()[0], caveats: []string{"tools=read_file"}, receipts: rk})
	benchCalls(b, s.cs, s.dir)
}

func benchCalls(b *testing.B, cs *sdk.ClientSession, dir string) {
	f := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(f, []byte("benchmark"), 0o600); err != nil {
		b.Fatal(err)
	}
	params := &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": f}}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t := time.Now()
		res, err := cs.CallTool(ctx, params)
		lat = append(lat, time.Since(t))
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "median-µs/call")
}
