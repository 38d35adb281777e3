package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// t0 is the time of every test: tickets are minted and checked at it.
var t0 = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return t0 }

// rootKey returns a deterministic Ed25519 root key and its keyring.
func rootKey(t testing.TB) (*key.Signing, *token.Keyring) {
	t.Helper()
	k, err := fixedkey.Signing(key.Ed25519, "root", "mcp root key")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(k.Verifying())
	if err != nil {
		t.Fatal(err)
	}
	return k, keys
}

// mint makes a ticket with the caveats in text form (parsed at t0).
func mint(t testing.TB, sk *key.Signing, caveats ...string) *token.Ticket {
	t.Helper()
	cs, err := caveat.ParseAll(caveats, t0)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := token.Mint(sk, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// attenuate appends a block with the caveats in text form.
func attenuate(t testing.TB, tk *token.Ticket, caveats ...string) *token.Ticket {
	t.Helper()
	cs, err := caveat.ParseAll(caveats, t0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tk.Attenuate(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for the proxy's log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// pipes are the four streams around a proxy.
type pipes struct {
	agentIn   *io.PipeReader // the proxy reads the agent here
	toProxy   *io.PipeWriter // the agent writes here
	fromProxy *io.PipeReader // the agent reads here
	agentOut  *io.PipeWriter // the proxy writes the agent here
	serverIn  *io.PipeWriter // the proxy writes the server here
	server    *io.PipeReader // the server reads here
	toAgent   *io.PipeWriter // the server writes here
	serverOut *io.PipeReader // the proxy reads the server here
}

func newPipes() *pipes {
	p := &pipes{}
	p.agentIn, p.toProxy = io.Pipe()
	p.fromProxy, p.agentOut = io.Pipe()
	p.server, p.serverIn = io.Pipe()
	p.serverOut, p.toAgent = io.Pipe()
	return p
}

func (p *pipes) closeAll() {
	for _, c := range []io.Closer{p.agentIn, p.toProxy, p.fromProxy, p.agentOut, p.serverIn, p.server, p.toAgent, p.serverOut} {
		c.Close()
	}
}

// serveProxy runs p.Serve over the pipes until the test ends.
func serveProxy(t testing.TB, p *Proxy, pp *pipes) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Serve(context.Background(), pp.agentIn, pp.agentOut, pp.serverIn, pp.serverOut) }()
	t.Cleanup(func() {
		pp.closeAll()
		<-done
	})
}

// serveUpstream runs p.ServeUpstream between the agent's ends of pp and
// up until the test ends.
func serveUpstream(t testing.TB, p *Proxy, pp *pipes, up *Upstream) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.ServeUpstream(context.Background(), pp.agentIn, pp.agentOut, up) }()
	t.Cleanup(func() {
		pp.closeAll()
		<-done
	})
}

// setup is a proxy between an SDK client and the fake filesystem server.
type setup struct {
	cs   *sdk.ClientSession
	p    *Proxy
	rec  *recorder
	log  *syncBuffer
	dir  string     // the directory the ticket's paths caveat admits
	out  string     // a directory outside it
	logp string     // the receipt log, when receipts were asked for
	recs *chain.Log // its Log

	keys  *token.Keyring // set by an edit that needs them
	store guard.Store
}

// options for start.
type options struct {
	version  string
	caveats  []string // besides paths=DIR/ when withPaths
	noPaths  bool
	profile  *Profile
	now      func() time.Time
	receipts *key.Signing
	client   *sdk.ClientOptions
	//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
	roots func(*setup) []*sdk.Root
	edit  func(*Config, *setup)
}

// start wires client → proxy → server for one protocol version.
func start(t testing.TB, o options) *setup {
	t.Helper()
	s := &setup{rec: &recorder{}, log: &syncBuffer{}, dir: realTempDir(t), out: realTempDir(t)}
	sk, keys := rootKey(t)
	cavs := o.caveats
	if !o.noPaths {
		cavs = append([]string{"paths=" + s.dir}, cavs...)
	}
	cfg := Config{Ticket: mint(t, sk, cavs...), Keys: keys, Profile: o.profile, Now: o.now, Log: s.log}
	if cfg.Now == nil {
		cfg.Now = fixedNow
	}
	if o.receipts != nil {
		s.logp = filepath.Join(realTempDir(t), "receipts.log")
		l, err := chain.Open(s.logp, o.receipts, "tickettool")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		cfg.Receipts, s.recs = l, l
	}
	if o.edit != nil {
		o.edit(&cfg, s)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.p = p
	pp := newPipes()
	ctx := context.Background()
	version, overHTTP := strings.CutPrefix(o.version, "http:")
	if overHTTP {
		// The same server behind the SDK's Streamable HTTP handler, the
		// proxy in front of it as an HTTP client.
		// The SDK's handler serves 2026-07-28 only without sessions.
		srv := newFakeFS(s.rec)
		ho := &sdk.StreamableHTTPOptions{Stateless: version >= ProtocolStateless}
		ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, ho))
		t.Cleanup(ts.Close)
		serveUpstream(t, p, pp, &Upstream{URL: ts.URL})
	} else {
		serveProxy(t, p, pp)
		ss, err := newFakeFS(s.rec).Connect(ctx, &sdk.IOTransport{Reader: pp.server, Writer: pp.toAgent}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1.0.0"}, o.client)
	if o.roots != nil {
		//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
		c.AddRoots(o.roots(s)...)
	}
	s.cs, err = c.Connect(ctx, &sdk.IOTransport{Reader: pp.fromProxy, Writer: pp.toProxy}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cs.Close() })
	if got := s.cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated protocol version %s, want %s", got, version)
	}
	return s
}

// call calls a tool and returns its text and whether it is an error result.
func (s *setup) call(t testing.TB, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	txt, err := resultText(res)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return txt, res.IsError
}
