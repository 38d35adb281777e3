package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// clientSetup is a guard whose clients present their own tickets, in
// front of a recording server.
type clientSetup struct {
	url string
	up  *recordingServer
	log *syncBuffer
}

func startClientListen(t *testing.T) *clientSetup {
	t.Helper()
	up := newRecordingServer(t)
	_, keys := rootKey(t)
	log := &syncBuffer{}
	store := guard.NewMemoryStore()
	p, err := New(Config{ClientTickets: true, Keys: keys, Store: store, Now: fixedNow, Log: log, Profile: &Profile{Name: "t",
		Tools: map[string]ToolArgs{"echo": {ReadOnly: true}, "add": {ReadOnly: true}, "read": {ReadOnly: true, Paths: []string{"path"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	m, err := dpophttp.New(dpophttp.Options{Keys: keys, Store: store, PublicURL: "http://" + addr, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	h, closeAll, err := p.ListenHandler(Listen{Addr: addr, Clients: m, Upstream: &Upstream{URL: up.srv.URL,
		Header: http.Header{"Authorization": {"Bearer upstream-own"}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		closeAll()
	})
	return &clientSetup{url: srv.URL, up: up, log: log}
}

// boundTo attenuates tk to a new holder key of its own.
func boundTo(t *testing.T, tk *token.Ticket) (*token.Ticket, *key.Holder) {
	t.Helper()
	h, err := key.GenerateHolder(key.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	c, err := caveat.NewHolder(h.Thumbprint())
	if err != nil {
		t.Fatal(err)
	}
	out, err := tk.Attenuate([]caveat.Caveat{c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, h
}

// lastRequest records the last request a client sent, as sent.
type lastRequest struct {
	mu   sync.Mutex
	req  *http.Request
	body string
}

func (l *lastRequest) RoundTrip(r *http.Request) (*http.Response, error) {
	body := ""
	if r.GetBody != nil {
		b, _ := r.GetBody()
		var sb strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := b.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				break
			}
		}
		body = sb.String()
	}
	l.mu.Lock()
	l.req, l.body = r.Clone(context.Background()), body
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// dpopClient connects the Go SDK client presenting tk with holder's
// proofs.
func dpopClient(t *testing.T, url, version string, tk *token.Ticket, holder *key.Holder) (*sdk.ClientSession, *lastRequest) {
	t.Helper()
	last := &lastRequest{}
	tr, err := dpophttp.NewTransport(tk, holder, dpophttp.ClientOptions{Base: last, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: tr}},
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %q, want %q", got, version)
	}
	return cs, last
}

// TestListenClientTickets: two clients, each presenting its own ticket
// bound to its own key (attenuations of one family), reach the server
// through one guard in each revision: each call is decided under the
// presenting client's ticket and proof by the same call policy (refused
// by caveat and by subject as tool results), the family's calls budget is
// shared through the store, a replayed proof is refused, a request
// without a ticket gets the DPoP challenge, a session is its ticket's
// alone, and neither ticket nor proof reaches the server.
func TestListenClientTickets(t *testing.T) {
	sk, _ := rootKey(t)
	family := mint(t, sk, "tools=read,echo", "paths=/allowed/", "calls=3")
	for _, version := range []string{ProtocolSessions, ProtocolStateless} {
		t.Run(version, func(t *testing.T) {
			s := startClientListen(t)
			ta, ha := boundTo(t, family)
			tb, hb := boundTo(t, family)
			a, lastA := dpopClient(t, s.url, version, ta, ha)
			b, _ := dpopClient(t, s.url, version, tb, hb)
			ctx := listenCtx(t)
			call := func(cs *sdk.ClientSession, tool, path string) (string, bool) {
				t.Helper()
				txt, isErr, err := sdkCall(ctx, cs, tool, map[string]any{"path": path}, "")
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", tool, path, err, s.log)
				}
				return txt, isErr
			}
			if txt, isErr := call(a, "read", "/allowed/1"); isErr || txt != "echo:/allowed/1" {
				t.Fatalf("A allowed: %q %v\n%s", txt, isErr, s.log)
			}
			if txt, isErr := call(b, "read", "/allowed/2"); isErr || txt != "echo:/allowed/2" {
				t.Fatalf("B allowed: %q %v", txt, isErr)
			}
			// A replays its last call, proof and all: refused, not charged.
			if status, rb := resend(t, lastA); !strings.Contains(rb, "replayed") || strings.Contains(rb, "echo:") {
				t.Fatalf("replayed call: %d %s", status, rb)
			}
			// And a request that is no call: its proof is recorded too.
			if _, err := a.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if status, rb := resend(t, lastA); status != http.StatusUnauthorized || !strings.Contains(rb, "replayed") {
				t.Fatalf("replayed tools/list: %d %s", status, rb)
			}
			if txt, isErr := call(a, "add", ""); !isErr || !strings.Contains(txt, "caveat tools") {
				t.Fatalf("A refused by caveat: %q %v", txt, isErr)
			}
			if txt, isErr := call(b, "read", "/etc/passwd"); !isErr || !strings.Contains(txt, "caveat paths") {
				t.Fatalf("B refused by subject: %q %v", txt, isErr)
			}
			if txt, isErr := call(a, "read", "/allowed/3"); isErr {
				t.Fatalf("A third: %q %v", txt, isErr)
			}
			if txt, isErr := call(b, "read", "/allowed/4"); !isErr || !strings.Contains(txt, "budget of 3 calls") {
				t.Fatalf("B refused by the shared budget: %q %v", txt, isErr)
			}
			if n := s.up.sentCalls("read"); n != 3 {
				t.Fatalf("the server got %d calls, want 3", n)
			}
			for _, r := range s.up.requests() {
				if r.header.Get("DPoP") != "" || r.header.Get("Authorization") != "Bearer upstream-own" ||
					strings.Contains(r.body, ta.String()) || strings.Contains(r.body, tb.String()) {
					t.Fatalf("a ticket or proof reached the server: %v %s", r.header, r.body)
				}
			}
			// No ticket: the challenge, and nothing forwarded.
			status, body := rawPost(t, s.url, http.Header{"Mcp-Protocol-Version": {ProtocolStateless}, "Mcp-Method": {"tools/call"},
				"Mcp-Name": {"echo"}}, statelessCall)
			if status != http.StatusUnauthorized || s.up.sentCalls("echo") != 0 {
				t.Fatalf("no ticket: %d %s", status, body)
			}
			if version == ProtocolSessions {
				// B's ticket in A's session.
				trB, _ := dpophttp.NewTransport(tb, hb, dpophttp.ClientOptions{Now: fixedNow})
				req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", a.ID())
				resp, err := (&http.Client{Transport: trB}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				if rb := readAll(resp); resp.StatusCode != http.StatusForbidden {
					t.Fatalf("another ticket's session: %d %s", resp.StatusCode, rb)
				}
			}
		})
	}
}

func nopBody(s string) *nopCloser { return &nopCloser{strings.NewReader(s)} }

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

func readAll(resp *http.Response) string {
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			return sb.String()
		}
	}
}

// resend sends the last request again, headers, proof and body as they
// were.
func resend(t *testing.T, last *lastRequest) (int, string) {
	t.Helper()
	last.mu.Lock()
	replay, body := last.req.Clone(context.Background()), last.body
	last.mu.Unlock()
	replay.Body, replay.RequestURI = nopBody(body), ""
	resp, err := http.DefaultTransport.RoundTrip(replay)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, readAll(resp)
}

// headerTransport adds a header to every request.
type headerTransport struct {
	base       http.RoundTripper
	name, text string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Add(h.name, h.text)
	return h.base.RoundTrip(r)
}

// TestListenClientDischarges: a client ticket that needs an approval is
// refused (as a tool result naming the approver) until the client
// presents the approver's discharge in a Ticket-Discharge header with its
// call; then the call is allowed.
func TestListenClientDischarges(t *testing.T) {
	sk, _ := rootKey(t)
	cs, err := caveat.ParseAll([]string{"tools=echo", "until=1h"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	cs = append(cs, approvalCaveat(t, approverKey(t), 1, "https://chat.example.com/lead"))
	family, err := token.Mint(sk, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := caveat.Parse("tools=echo", t0)
	if err != nil {
		t.Fatal(err)
	}
	discharge := approve(t, family, tools, untilC(t, time.Hour))
	s := startClientListen(t)
	tk, h := boundTo(t, family)
	ctx := listenCtx(t)
	connect := func(base http.RoundTripper) *sdk.ClientSession {
		t.Helper()
		tr, err := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{Base: base, Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		c, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: s.url, DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: tr}},
			&sdk.ClientSessionOptions{ProtocolVersion: ProtocolStateless})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	without := connect(http.DefaultTransport)
	if txt, isErr, err := sdkCall(ctx, without, "echo", map[string]any{"message": "x"}, ""); err != nil || !isErr || !strings.Contains(txt, "approval") {
		t.Fatalf("without the discharge: %q %v %v\n%s", txt, isErr, err, s.log)
	}
	with := connect(&headerTransport{base: http.DefaultTransport, name: dpophttp.DischargeHeader, text: discharge})
	if txt, isErr, err := sdkCall(ctx, with, "echo", map[string]any{"message": "x"}, ""); err != nil || isErr || txt != "echo:x" {
		t.Fatalf("with the discharge: %q %v %v\n%s", txt, isErr, err, s.log)
	}
}
