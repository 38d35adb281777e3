package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/mcp"
	"github.com/tickettool/tickettool/store/sqlitestore"
	"github.com/tickettool/tickettool/token"
)

// The MCP guard's listener, as pairs: one allowed trivial tools/call
// (2026-07-28, no session: one POST each) through `mcp --listen` in front
// of a Streamable HTTP server ÷ the same call made to the server directly,
// one call at a time over kept-alive loopback connections, in process.

// mcpServer is a trivial Streamable HTTP MCP server: every request gets a
// tool result, as one JSON object.
func mcpServer(tb testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		id := "null"
		if _, rest, ok := strings.Cut(string(b), `"id":`); ok {
			id = rest[:strings.IndexAny(rest, ",}")]
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}],"isError":false,"resultType":"complete"}}`, id)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// mcpCaller is the side that calls the tool echo at url, one call at a
// time, and checks the answer.
func mcpCaller(name, url string) side {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, DisableCompression: true}}
	var id atomic.Int64
	return serial(name, func() error {
		n := strconv.FormatInt(id.Add(1), 10)
		body := `{"jsonrpc":"2.0","id":` + n + `,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", "echo")
		res, err := c.Do(r)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 || !strings.Contains(string(b), `"text":"ok"`) || !strings.Contains(string(b), `"id":`+n+`,`) {
			return fmt.Errorf("%s: status %d: %s", name, res.StatusCode, b)
		}
		return nil
	})
}

// mcpGuard serves `mcp --listen` in process in front of up, with store
// and receipts, and returns its URL.
func mcpGuard(tb testing.TB, up string, store guard.Store, receipts *chain.Log) string {
	root := must(key.NewHMAC("root", fixedBytes(key.HMACBytes, 21)))(tb)
	keys := must(token.NewKeyring(root.Verifying()))(tb)
	cs := must(caveat.ParseAll([]string{"tools=echo", "calls=1000000000", "until=24h"}, time.Now()))(tb)
	ticket := must(token.Mint(root, cs, nil))(tb)
	p := must(mcp.New(mcp.Config{Ticket: ticket, Keys: keys, Store: store, Receipts: receipts, Log: io.Discard,
		Profile: &mcp.Profile{Name: "bench", Tools: map[string]mcp.ToolArgs{"echo": {ReadOnly: true}}}}))(tb)
	srv := httptest.NewUnstartedServer(nil)
	h, closeAll, err := p.ListenHandler(mcp.Listen{Addr: srv.Listener.Addr().String(), Upstream: &mcp.Upstream{URL: up}})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	tb.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); closeAll() })
	return srv.URL
}

// listenPairs: the guard over HTTP ÷ the direct call, with the memory
// store and no receipts, and with a SQLite store and fsynced receipts;
// what the second HTTP hop alone costs, a bare reverse proxy ÷ the direct
// call; and the target, the guard ÷ that proxy. A trivial call's direct
// round trip is about all it costs, so any second hop multiplies it (the
// bare proxy alone is 2.3–2.7×): 1.3× the direct call is out of reach of
// anything in the middle, and the guard is held to 1.3× of the hop it
// cannot avoid.
func listenPairs(tb testing.TB) []pair {
	up := mcpServer(tb)
	direct := mcpCaller("direct call", up.URL)
	dir := tb.TempDir()
	db := must(sqlitestore.Open(context.Background(), filepath.Join(dir, "store.db"), sqlitestore.Options{}))(tb)
	tb.Cleanup(func() { db.Close() })
	log := must(chain.Open(filepath.Join(dir, "receipts.log"), receiptKey(tb), receiptOrigin))(tb)
	tb.Cleanup(func() { log.Close() })
	u := must(url.Parse(up.URL))(tb)
	bare := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) }})
	tb.Cleanup(bare.Close)
	viaBare := mcpCaller("through a bare httputil.ReverseProxy", bare.URL)
	guarded := mcpCaller("through mcp --listen (memory)", mcpGuard(tb, up.URL, guard.NewMemoryStore(), nil))
	return []pair{
		{group: groupHTTP, name: "`mcp --listen`, allowed trivial tools/call (memory store, no receipts) ÷ the same call to the server directly",
			a: direct, b: guarded, wall: true},
		{group: groupHTTP, name: "the same call through a bare httputil.ReverseProxy (the second hop alone) ÷ directly",
			a: direct, b: viaBare, wall: true},
		{group: groupHTTP, name: "`mcp --listen` (memory store, no receipts) ÷ a bare httputil.ReverseProxy",
			a: viaBare, b: guarded, wall: true, target: &target{text: "≤ 1.3×", limit: 1.3}},
		{group: groupHTTP, name: "`mcp --listen`, allowed trivial tools/call (SQLite store, fsynced receipts) ÷ the same call to the server directly",
			a: direct, b: mcpCaller("through mcp --listen (SQLite, receipts)", mcpGuard(tb, up.URL, db, log)),
			wall: true, batch: ioBatch},
	}
}

// TestListenSides: each side of the listener pairs runs, allowed (the
// pairs themselves run only with -pairs).
func TestListenSides(t *testing.T) {
	for _, p := range listenPairs(t) {
		for _, s := range []side{p.a, p.b} {
			if err := s.run(3); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
	}
}
