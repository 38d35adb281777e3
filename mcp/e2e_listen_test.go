//go:build unix

package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// e2eListenClientEnv names client.mjs as mcp/testdata/e2e-listen/install.sh
// installs it, with the official TypeScript SDK beside it.
const e2eListenClientEnv = "TICKETTOOL_E2E_LISTEN_CLIENT"

// sdkUpstream is a Go SDK server over Streamable HTTP (tools read and
// add) that records every request.
type sdkUpstream struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

func newSDKUpstream(t *testing.T) *sdkUpstream {
	s := sdk.NewServer(&sdk.Implementation{Name: "rec", Version: "1.0.0"}, nil)
	type args struct {
		Path string `json:"path,omitempty"`
	}
	read := func(_ context.Context, _ *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "read:" + a.Path}}}, nil, nil
	}
	sdk.AddTool(s, &sdk.Tool{Name: "read"}, read)
	sdk.AddTool(s, &sdk.Tool{Name: "add"}, read)
	sessions := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	stateless := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
	u := &sdkUpstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		u.mu.Lock()
		u.reqs = append(u.reqs, recorded{method: r.Method, header: r.Header.Clone(), body: string(b)})
		u.mu.Unlock()
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *sdkUpstream) requests() []recorded {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]recorded(nil), u.reqs...)
}

func (u *sdkUpstream) calls(tool string) int {
	n := 0
	for _, r := range u.requests() {
		if strings.Contains(r.body, `"method":"tools/call"`) && strings.Contains(r.body, `"name":"`+tool+`"`) {
			n++
		}
	}
	return n
}

// startListening runs tickettool mcp --listen on a loopback port of its
// choosing in front of up, and returns its URL.
// With ticket "", the guard takes --client-tickets.
func startListening(t *testing.T, e *e2e, up *sdkUpstream, ticket string) string {
	t.Helper()
	dir := t.TempDir()
	ticketFile, profile := filepath.Join(dir, "ticket"), filepath.Join(dir, "profile.json")
	os.WriteFile(ticketFile, []byte(ticket), 0o600)
	os.WriteFile(profile, []byte(`{"name":"rec","tools":{"read":{"readOnly":true,"paths":["/path"]},"add":{"readOnly":true}}}`), 0o600)
	who := []string{"--ticket-file", ticketFile}
	if ticket == "" {
		who = []string{"--client-tickets"}
	}
	cmd := exec.Command(e.bin, append(append([]string{"mcp"}, who...), "--key", "root.key.pub", "--receipts", e.log,
		"--receipt-key", "rk.key", "--profile-file", profile, "--listen", "127.0.0.1:0", "--upstream", up.srv.URL)...)
	cmd.Dir = e.keys
	return startGuard(t, cmd)
}

// startGuard starts a guard that listens and returns its URL.
func startGuard(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), "listening on "); ok {
			go io.Copy(io.Discard, stderr)
			return url
		}
		t.Log(sc.Text())
	}
	t.Fatalf("the guard did not listen")
	return ""
}

type tsOutput struct {
	ConnectError    string
	ProtocolVersion string
	SessionID       string
	Results         []struct {
		IsError bool
		Text    string
		Error   string
	}
}

// runTS runs the TypeScript SDK client against url with the steps.
func runTS(t *testing.T, client, url, steps string, origin string, env ...string) tsOutput {
	t.Helper()
	args := []string{client, url, steps}
	if origin != "" {
		args = append(args, origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, out)
	}
	var o tsOutput
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	return o
}

// TestE2EListen: the official TypeScript SDK client (it speaks 2025-11-25)
// and the official Go SDK client (2025-11-25 and 2026-07-28) connect to a
// real tickettool mcp --listen process in front of a recording Streamable
// HTTP server: calls allowed and refused by caveat, by subject and by
// budget (shared by every client of the guard through its store), a
// spoofed Origin refused, a header that disagrees with the body refused
// with -32020; the ticket never reaches the server.
func TestE2EListen(t *testing.T) {
	client := os.Getenv(e2eListenClientEnv)
	if client == "" {
		msg := e2eListenClientEnv + " is not set: run mcp/testdata/e2e-listen/install.sh and set it to the path it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("the TypeScript client needs node: %v", err)
	}
	e := newE2E(t, "", "")
	up := newSDKUpstream(t)
	ticket := e.mint(t, "tools=read", "paths=/allowed/", "calls=3", "until=10m")
	url := startListening(t, e, up, ticket)

	steps := `[{"name":"read","arguments":{"path":"/allowed/a"}},{"name":"add","arguments":{}},` +
		`{"name":"read","arguments":{"path":"/etc/passwd"}},{"name":"read","arguments":{"path":"/allowed/b"}}]`
	o := runTS(t, client, url, steps, "")
	switch {
	case o.ConnectError != "" || o.ProtocolVersion != "2025-11-25" || o.SessionID == "" || len(o.Results) != 4:
		t.Fatalf("TypeScript client: %+v", o)
	case o.Results[0].IsError || o.Results[0].Text != "read:/allowed/a":
		t.Fatalf("allowed: %+v", o.Results[0])
	case !o.Results[1].IsError || !strings.Contains(o.Results[1].Text, "caveat tools"):
		t.Fatalf("refused by caveat: %+v", o.Results[1])
	case !o.Results[2].IsError || !strings.Contains(o.Results[2].Text, "caveat paths"):
		t.Fatalf("refused by subject: %+v", o.Results[2])
	case o.Results[3].IsError || o.Results[3].Text != "read:/allowed/b":
		t.Fatalf("second allowed: %+v", o.Results[3])
	}
	if up.calls("add") != 0 || up.calls("read") != 2 {
		t.Fatalf("the server got %d add and %d read calls, want 0 and 2", up.calls("add"), up.calls("read"))
	}
	if o := runTS(t, client, url, `[]`, "http://evil.example"); !strings.Contains(o.ConnectError, "Origin is not one this listener accepts") {
		t.Fatalf("spoofed Origin: %+v", o)
	}

	// The Go SDK client in 2026-07-28: the third call of calls=3 is its,
	// the fourth is refused by the budget the TypeScript client spent.
	cs := goConnect(t, url, "2026-07-28", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if txt, isErr, err := callText(ctx, cs, "read", map[string]any{"path": "/allowed/c"}, ""); err != nil || isErr || txt != "read:/allowed/c" {
		t.Fatalf("Go client, allowed: %q %v %v", txt, isErr, err)
	}
	if txt, isErr, err := callText(ctx, cs, "read", map[string]any{"path": "/allowed/d"}, ""); err != nil || !isErr || !strings.Contains(txt, "budget of 3 calls") {
		t.Fatalf("Go client, refused by the shared budget: %q %v %v", txt, isErr, err)
	}
	// A client whose Mcp-Name disagrees with its body is refused before the
	// guard's policy sees it.
	bad := goConnect(t, url, "2026-07-28", func(r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/call" {
			r.Header.Set("Mcp-Name", "add")
		}
	})
	if _, _, err := callText(ctx, bad, "read", map[string]any{"path": "/allowed/e"}, ""); err == nil || !strings.Contains(err.Error(), "-32020") && !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("header mismatch: %v", err)
	}
	// Under 2025-11-25, an MCP-Protocol-Version that is not the session's.
	old := goConnect(t, url, "2025-11-25", func(r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(b)))
		if strings.Contains(string(b), `"tools/call"`) {
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
	})
	if _, _, err := callText(ctx, old, "read", map[string]any{"path": "/allowed/f"}, ""); err == nil {
		t.Fatalf("a session's request under another revision was answered")
	}
	if n := up.calls("read"); n != 3 {
		t.Fatalf("the server got %d read calls, want 3", n)
	}
	for _, r := range up.requests() {
		if strings.Contains(r.body, ticket) || strings.Contains(strings.Join(flatten(r.header), "\n"), ticket[:40]) {
			t.Fatalf("the ticket reached the server")
		}
	}
}

func flatten(h http.Header) []string {
	var s []string
	for k, vs := range h {
		for _, v := range vs {
			s = append(s, k+": "+v)
		}
	}
	return s
}

// headerEdit is a RoundTripper that edits each request's headers.
type headerEdit func(*http.Request)

func (f headerEdit) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	f(r)
	return http.DefaultTransport.RoundTrip(r)
}

// goConnect connects the Go SDK client to url in version, its requests'
// headers edited by edit when set.
func goConnect(t *testing.T, url, version string, edit func(*http.Request)) *sdk.ClientSession {
	t.Helper()
	var hc *http.Client
	if edit != nil {
		hc = &http.Client{Transport: headerEdit(edit)}
	}
	return goConnectWith(t, url, version, hc)
}

// goConnectWith connects the Go SDK client to url in version through hc.
func goConnectWith(t *testing.T, url, version string, hc *http.Client) *sdk.ClientSession {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, HTTPClient: hc}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "go-agent", Version: "1.0.0"}, nil).Connect(ctx, tr,
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %q, want %q", got, version)
	}
	return cs
}

// TestE2EListenClientTickets: a real tickettool mcp --listen
// --client-tickets process; two Go SDK clients, in each revision, each
// presenting its own ticket bound to its own key (attenuations of one
// family) through dpophttp's Transport, and under 2025-11-25 the
// TypeScript SDK client with a third (ES256, its proofs made with
// WebCrypto), share the family's budget; a client without a ticket gets
// the DPoP challenge; no ticket nor proof reaches the server.
func TestE2EListenClientTickets(t *testing.T) {
	client := os.Getenv(e2eListenClientEnv)
	if client == "" {
		msg := e2eListenClientEnv + " is not set: run mcp/testdata/e2e-listen/install.sh and set it to the path it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	e := newE2E(t, "", "")
	e.tt(t, "holder", "--alg", "es256", "--out", "ts.jwk")
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			up := newSDKUpstream(t)
			url := startListening(t, e, up, "")
			familyText := e.mint(t, "tools=read", "paths=/allowed/", "calls=3", "until=10m")
			family, err := token.Parse(familyText)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var tickets []string
			var sessions []*sdk.ClientSession
			for range 2 {
				h, err := key.GenerateHolder(key.Ed25519)
				if err != nil {
					t.Fatal(err)
				}
				bind, _ := caveat.NewHolder(h.Thumbprint())
				tk, err := family.Attenuate([]caveat.Caveat{bind}, nil)
				if err != nil {
					t.Fatal(err)
				}
				tr, err := dpophttp.NewTransport(tk, h, dpophttp.ClientOptions{})
				if err != nil {
					t.Fatal(err)
				}
				tickets = append(tickets, tk.String())
				sessions = append(sessions, goConnectWith(t, url, version, &http.Client{Transport: tr}))
			}
			for i, cs := range sessions {
				if txt, isErr, err := callText(ctx, cs, "read", map[string]any{"path": "/allowed/x"}, ""); err != nil || isErr {
					t.Fatalf("client %d: %q %v %v", i, txt, isErr, err)
				}
			}
			if version == "2025-11-25" {
				tsTicket := strings.TrimSpace(e.tt(t, "attenuate", "--bind", "ts.jwk.pub", familyText))
				tickets = append(tickets, tsTicket)
				ticketFile := filepath.Join(t.TempDir(), "ts.ticket")
				os.WriteFile(ticketFile, []byte(tsTicket), 0o600)
				o := runTS(t, client, url, `[{"name":"read","arguments":{"path":"/allowed/t"}},{"name":"read","arguments":{"path":"/allowed/u"}}]`, "",
					"TICKET_FILE="+ticketFile, "HOLDER_JWK="+filepath.Join(e.keys, "ts.jwk"))
				if o.ConnectError != "" || len(o.Results) != 2 || o.Results[0].IsError || o.Results[0].Text != "read:/allowed/t" ||
					!o.Results[1].IsError || !strings.Contains(o.Results[1].Text, "budget of 3 calls") {
					t.Fatalf("TypeScript client with its own ticket: %+v", o)
				}
			} else {
				if txt, isErr, err := callText(ctx, sessions[0], "read", map[string]any{"path": "/allowed/t"}, ""); err != nil || isErr {
					t.Fatalf("the third call: %q %v %v", txt, isErr, err)
				}
				if txt, isErr, err := callText(ctx, sessions[1], "read", map[string]any{"path": "/allowed/u"}, ""); err != nil || !isErr ||
					!strings.Contains(txt, "budget of 3 calls") {
					t.Fatalf("the shared budget: %q %v %v", txt, isErr, err)
				}
			}
			resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "DPoP") {
				t.Fatalf("no ticket: %d %v", resp.StatusCode, resp.Header)
			}
			if up.calls("read") != 3 {
				t.Fatalf("the server got %d calls, want 3", up.calls("read"))
			}
			for _, r := range up.requests() {
				for _, tk := range tickets {
					if r.header.Get("DPoP") != "" || strings.Contains(r.body, tk) || strings.Contains(strings.Join(flatten(r.header), "\n"), tk[:40]) {
						t.Fatalf("a ticket or proof reached the server")
					}
				}
			}
		})
	}
}

// TestE2EListenStdio: mcp --listen in front of the reference filesystem
// server over stdio, a server process per session: the Go SDK client
// (2025-11-25, with its GET stream, on which the server's roots/list
// comes and whose answer is filtered) reads a file the ticket allows and
// is refused one outside it, in two sessions at once.
func TestE2EListenStdio(t *testing.T) {
	entry := os.Getenv(e2eServerEnv)
	if entry == "" {
		msg := e2eServerEnv + " is not set: run mcp/testdata/e2e/install.sh and set it to the path it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the filesystem server needs node: %v", err)
	}
	e := newE2E(t, node, entry)
	ticketFile := filepath.Join(t.TempDir(), "ticket")
	os.WriteFile(ticketFile, []byte(e.mint(t, "tools=fs/read_text_file", "paths="+e.allowed+"/", "until=10m")), 0o600)
	cmd := exec.Command(e.bin, "mcp", "--ticket-file", ticketFile, "--key", "root.key.pub", "--receipts", e.log,
		"--receipt-key", "rk.key", "--server-name", "fs", "--listen", "127.0.0.1:0", "--", node, entry, e.ws)
	cmd.Dir = e.keys
	url := startGuard(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	defer cancel()
	for i := range 2 {
		client := sdk.NewClient(&sdk.Implementation{Name: "go-agent", Version: "1.0.0"}, nil)
		//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
		client.AddRoots(&sdk.Root{URI: "file://" + e.ws}, &sdk.Root{URI: "file://" + e.allowed})
		cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("session %d: connect: %v", i, err)
		}
		defer cs.Close()
		txt, isErr, err := callText(ctx, cs, "read_text_file", map[string]any{"path": filepath.Join(e.allowed, "a.txt")}, "")
		if err != nil || isErr || txt != "alpha" {
			t.Fatalf("session %d: allowed: %q %v %v", i, txt, isErr, err)
		}
		txt, isErr, err = callText(ctx, cs, "read_text_file", map[string]any{"path": filepath.Join(e.outside, "secret")}, "")
		if err != nil || !isErr || !strings.Contains(txt, "caveat paths") || strings.Contains(txt, "s3cret") {
			t.Fatalf("session %d: refused: %q %v %v", i, txt, isErr, err)
		}
	}
}
