package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// listenRecorded is one request the recording server got.
type listenRecorded struct {
	header http.Header
	body   string
}

// recordingServer is a Go SDK MCP server over Streamable HTTP (tools echo
// and read) that records every request it gets.
type recordingServer struct {
	srv    *httptest.Server
	server *sdk.Server
	mu     sync.Mutex
	reqs   []listenRecorded
}

func newRecordingServer(t *testing.T) *recordingServer {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "rec", Version: "1.0.0"}, nil)
	type args struct {
		Message string `json:"message,omitempty"`
		Path    string `json:"path,omitempty"`
	}
	echo := func(_ context.Context, _ *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo:" + a.Message + a.Path}}}, nil, nil
	}
	for _, name := range []string{"echo", "read", "add"} {
		sdk.AddTool(s, &sdk.Tool{Name: name}, echo)
	}
	// region's argument region travels as Mcp-Param-Region too.
	s.AddTool(&sdk.Tool{Name: "region", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "region:" + string(req.Params.Arguments)}}}, nil
		})
	// The SDK serves 2026-07-28 only from a stateless handler.
	sessions := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	stateless := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true})
	r := &recordingServer{server: s}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(strings.NewReader(string(b)))
		r.mu.Lock()
		r.reqs = append(r.reqs, listenRecorded{header: req.Header.Clone(), body: string(b)})
		r.mu.Unlock()
		if req.Header.Get("Mcp-Protocol-Version") >= ProtocolStateless {
			stateless.ServeHTTP(w, req)
			return
		}
		sessions.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recordingServer) requests() []listenRecorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]listenRecorded(nil), r.reqs...)
}

// sentCalls counts the tools/call requests to tool the server got.
func (r *recordingServer) sentCalls(tool string) int {
	n := 0
	for _, q := range r.requests() {
		if strings.Contains(q.body, `"method":"tools/call"`) && strings.Contains(q.body, `"name":"`+tool+`"`) {
			n++
		}
	}
	return n
}

// listenSetup is a guard listening on loopback in front of a recording
// server.
type listenSetup struct {
	handler *listener
	url     string
	up      *recordingServer
	log     *syncBuffer
	addr    string
}

func startListen(t *testing.T, caveats ...string) *listenSetup {
	t.Helper()
	up := newRecordingServer(t)
	sk, keys := rootKey(t)
	log := &syncBuffer{}
	p, err := New(Config{Ticket: mint(t, sk, caveats...), Keys: keys, Now: fixedNow, Log: log, Profile: &Profile{Name: "t",
		Tools: map[string]ToolArgs{"echo": {ReadOnly: true}, "add": {ReadOnly: true}, "region": {ReadOnly: true},
			"read": {ReadOnly: true, Paths: []string{"path"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	h, closeAll, err := p.ListenHandler(Listen{Addr: addr, Upstream: &Upstream{URL: up.srv.URL,
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
	return &listenSetup{handler: h.(*listener), url: srv.URL, up: up, log: log, addr: addr}
}

func connectSDK(t *testing.T, url, version string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1.0.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true},
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

func listenCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestListenGoSDK: the official Go SDK client, in each revision it speaks,
// reaches the server through the listener: an allowed call is answered by
// the server; calls refused by caveat, by subject and by budget are tool
// results with isError and never reach the server.
func TestListenGoSDK(t *testing.T) {
	for _, version := range []string{ProtocolSessions, ProtocolStateless} {
		t.Run(version, func(t *testing.T) {
			s := startListen(t, "tools=read,echo", "paths=/allowed/", "calls=2")
			cs := connectSDK(t, s.url, version)
			ctx := listenCtx(t)

			txt, isErr, err := sdkCall(ctx, cs, "read", map[string]any{"path": "/allowed/hi"}, "")
			if err != nil || isErr || txt != "echo:/allowed/hi" {
				t.Fatalf("allowed: %q %v %v\n%s", txt, isErr, err, s.log)
			}
			txt, isErr, err = sdkCall(ctx, cs, "add", map[string]any{"message": "x"}, "")
			if err != nil || !isErr || !strings.Contains(txt, "caveat tools") || s.up.sentCalls("add") != 0 {
				t.Fatalf("refused by caveat: %q %v %v", txt, isErr, err)
			}
			txt, isErr, err = sdkCall(ctx, cs, "read", map[string]any{"path": "/etc/passwd"}, "")
			if err != nil || !isErr || !strings.Contains(txt, "caveat paths") || s.up.sentCalls("read") != 1 {
				t.Fatalf("refused by subject: %q %v %v", txt, isErr, err)
			}
			txt, isErr, err = sdkCall(ctx, cs, "read", map[string]any{"path": "/allowed/a"}, "")
			if err != nil || isErr || txt != "echo:/allowed/a" {
				t.Fatalf("second allowed: %q %v %v", txt, isErr, err)
			}
			txt, isErr, err = sdkCall(ctx, cs, "read", map[string]any{"path": "/allowed/b"}, "")
			if err != nil || !isErr || !strings.Contains(txt, "calls") || s.up.sentCalls("read") != 2 {
				t.Fatalf("refused by budget: %q %v %v (%d sent)", txt, isErr, err, s.up.sentCalls("read"))
			}
			for _, r := range s.up.requests() {
				if got := r.header.Get("Authorization"); got != "Bearer upstream-own" {
					t.Fatalf("the server got Authorization %q", got)
				}
			}
		})
	}
}

// rawPost sends one message to the listener and returns the status and
// body.
func rawPost(t *testing.T, url string, header http.Header, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func httpErrorCode(t *testing.T, body string) int {
	t.Helper()
	var m struct {
		Error struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("not a JSON-RPC error: %q", body)
	}
	return m.Error.Code
}

const statelessCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestListenOrigin: a request whose Origin is not the listener's own, or
// whose Host is not the loopback it listens on (a rebound name), is
// refused with 403 before anything reaches the server; the listener's own
// origin, and no Origin (a client that is not a browser), pass.
func TestListenOrigin(t *testing.T) {
	s := startListen(t, "tools=echo")
	port := s.addr[strings.LastIndex(s.addr, ":"):]
	good := http.Header{"Mcp-Protocol-Version": {ProtocolStateless}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}}
	for _, tc := range []struct {
		name   string
		header http.Header
		status int
	}{
		{"no origin", nil, 200},
		{"own origin", http.Header{"Origin": {"http://localhost" + port}}, 200},
		{"spoofed origin", http.Header{"Origin": {"http://evil.example"}}, 403},
		{"null origin", http.Header{"Origin": {"null"}}, 403},
		{"other port", http.Header{"Origin": {"http://127.0.0.1:1"}}, 403},
		{"rebound host", http.Header{"Host": {"evil.example" + port}}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := good.Clone()
			for k, v := range tc.header {
				h[k] = v
			}
			before := s.up.sentCalls("echo")
			status, body := rawPost(t, s.url, h, statelessCall)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if tc.status == 403 && s.up.sentCalls("echo") != before {
				t.Fatalf("a refused request reached the server")
			}
		})
	}
}

// TestListenHeaderMismatch: under 2026-07-28 a message whose
// MCP-Protocol-Version, Mcp-Method or Mcp-Name disagrees with its body is
// refused with 400 and -32020, and nothing reaches the server nor the
// policy (no receipt, no charge).
func TestListenHeaderMismatch(t *testing.T) {
	s := startListen(t, "tools=echo", "calls=1")
	good := http.Header{"Mcp-Protocol-Version": {ProtocolStateless}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}}
	for _, tc := range []struct {
		name  string
		edit  func(http.Header)
		body  string
		code  int
		inLog bool
	}{
		{"name", func(h http.Header) { h.Set("Mcp-Name", "add") }, statelessCall, codeHeaderMismatch, false},
		{"name missing", func(h http.Header) { h.Del("Mcp-Name") }, statelessCall, codeHeaderMismatch, false},
		{"method", func(h http.Header) { h.Set("Mcp-Method", "tools/list") }, statelessCall, codeHeaderMismatch, false},
		{"version", func(h http.Header) { h.Set("Mcp-Protocol-Version", ProtocolSessions) }, statelessCall, codeHeaderMismatch, false},
		{"version missing", func(h http.Header) { h.Del("Mcp-Protocol-Version") }, statelessCall, codeHeaderMismatch, false},
		{"body without _meta", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, codeHeaderMismatch, false},
		{"base64 name of another tool", func(h http.Header) { h.Set("Mcp-Name", "=?base64?YWRk?=") }, statelessCall, codeHeaderMismatch, false},
		{"unsupported version", func(h http.Header) { h.Set("Mcp-Protocol-Version", "2027-01-01") },
			strings.Replace(statelessCall, ProtocolStateless, "2027-01-01", 1), codeUnsupportedVersion, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := good.Clone()
			if tc.edit != nil {
				tc.edit(h)
			}
			status, body := rawPost(t, s.url, h, tc.body)
			if status != 400 || httpErrorCode(t, body) != tc.code {
				t.Fatalf("status %d body %s, want 400 with %d", status, body, tc.code)
			}
		})
	}
	if n := s.up.sentCalls("echo"); n != 0 {
		t.Fatalf("%d refused calls reached the server", n)
	}
	// The one call the budget allows is still there: nothing was charged.
	status, body := rawPost(t, s.url, good, statelessCall)
	if status != 200 || !strings.Contains(body, "echo:x") {
		t.Fatalf("the matching request: %d %s", status, body)
	}
	// A Base64-encoded Mcp-Name that decodes to the body's name passes.
	h := good.Clone()
	h.Set("Mcp-Name", "=?base64?ZWNobw==?=")
	status, body = rawPost(t, s.url, h, strings.Replace(statelessCall, `"id":1`, `"id":2`, 1))
	if status != 200 || !strings.Contains(body, "calls") {
		t.Fatalf("the encoded name: %d %s", status, body)
	}
}

// TestListenSessions: a 2025-11-25 message needs its session: without
// Mcp-Session-Id (other than an initialize) it gets 400, with an unknown
// one 404, and an MCP-Protocol-Version that is not the session's 400.
func TestListenSessions(t *testing.T) {
	s := startListen(t, "tools=echo")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if status, body := rawPost(t, s.url, nil, list); status != 400 {
		t.Fatalf("no session: %d %s", status, body)
	}
	if status, body := rawPost(t, s.url, http.Header{"Mcp-Session-Id": {"nope"}}, list); status != 404 {
		t.Fatalf("unknown session: %d %s", status, body)
	}
	if status, body := rawPost(t, s.url, http.Header{"Mcp-Protocol-Version": {"1999-01-01"}}, list); status != 400 {
		t.Fatalf("unknown version: %d %s", status, body)
	}
	cs := connectSDK(t, s.url, ProtocolSessions)
	sid := cs.ID()
	if status, body := rawPost(t, s.url, http.Header{"Mcp-Session-Id": {sid}, "Mcp-Protocol-Version": {"2025-06-18"}}, list); status != 400 {
		t.Fatalf("another revision in the session: %d %s", status, body)
	}
	if status, body := rawPost(t, s.url, http.Header{"Mcp-Session-Id": {sid}, "Mcp-Protocol-Version": {ProtocolSessions}}, list); status != 200 || !strings.Contains(body, `"echo"`) || strings.Contains(body, `"add"`) {
		t.Fatalf("tools/list in the session: %d %s", status, body)
	}
}

// sdkCall calls a tool and returns the text of its result and whether it
// is an error result.
func sdkCall(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any, _ string) (string, bool, error) {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String(), res.IsError, nil
}

// TestListenIdleSession: a session without requests for the idle time is
// ended: its next request gets 404, and the client starts a new one.
func TestListenIdleSession(t *testing.T) {
	s := startListen(t, "tools=echo")
	l := s.handler
	l.idle, l.sweep = 50*time.Millisecond, 10*time.Millisecond
	cs := connectSDK(t, s.url, ProtocolSessions)
	list := `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
	h := http.Header{"Mcp-Session-Id": {cs.ID()}, "Mcp-Protocol-Version": {ProtocolSessions}}
	if status, body := rawPost(t, s.url, h, list); status != 200 {
		t.Fatalf("a live session: %d %s", status, body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		status, _ := rawPost(t, s.url, h, list)
		if status == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session still answers: %d", status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(s.log.String(), "ended a session idle") {
		t.Fatalf("log: %s", s.log)
	}
}

// TestListenSubscription: under 2026-07-28 a client's subscriptions/listen
// stream gets the server's change notifications, their subscription id
// the client's own.
func TestListenSubscription(t *testing.T) {
	s := startListen(t, "tools=echo,late")
	changed := make(chan struct{}, 4)
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1.0.0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(listenCtx(t), &sdk.StreamableClientTransport{Endpoint: s.url, DisableStandaloneSSE: true},
		&sdk.ClientSessionOptions{ProtocolVersion: ProtocolStateless})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	deadline := time.Now().Add(10 * time.Second)
	for n := 0; ; n++ {
		// The subscription may still be opening: add tools until one
		// change reaches the client.
		sdk.AddTool(s.up.server, &sdk.Tool{Name: "late" + strconv.Itoa(n)}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{}, nil, nil
		})
		select {
		case <-changed:
			return
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tools/list_changed reached the client\n%s", s.log)
		}
	}
}

// TestListenParamHeaders: under 2026-07-28 a tools/call whose Mcp-Param
// header (for an argument the tool's inputSchema annotates with
// x-mcp-header, learnt from a tools/list answer) is missing or disagrees
// with the argument is refused with 400 and -32020 and never reaches the
// policy or the server; one that agrees, plainly or Base64-encoded,
// passes, and so does the Go SDK client's own.
func TestListenParamHeaders(t *testing.T) {
	s := startListen(t, "tools=region")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	list := http.Header{"Mcp-Protocol-Version": {ProtocolStateless}, "Mcp-Method": {"tools/list"}}
	if status, body := rawPost(t, s.url, list, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`); status != 200 || !strings.Contains(body, "x-mcp-header") {
		t.Fatalf("tools/list: %d %s", status, body)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"region","arguments":{"region":"eu"},` + meta + `}}`
	for _, tc := range []struct {
		name, value string // value "": no header
		status      int
	}{
		{"another value", "us", 400},
		{"missing", "", 400},
		{"base64 of another", "=?base64?dXM=?=", 400},
		{"the same", "eu", 200},
		{"the same in base64", "=?base64?ZXU=?=", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Mcp-Protocol-Version": {ProtocolStateless}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"region"}}
			if tc.value != "" {
				h.Set("Mcp-Param-Region", tc.value)
			}
			before := s.up.sentCalls("region")
			status, body := rawPost(t, s.url, h, call)
			switch {
			case status != tc.status:
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			case status == 400 && (httpErrorCode(t, body) != codeHeaderMismatch || s.up.sentCalls("region") != before):
				t.Fatalf("refused: %s, %d sent", body, s.up.sentCalls("region")-before)
			case status == 200 && !strings.Contains(body, `region:{\"region\":\"eu\"}`):
				t.Fatalf("allowed: %s", body)
			}
		})
	}
	cs := connectSDK(t, s.url, ProtocolStateless)
	ctx := listenCtx(t)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "region", Arguments: map[string]any{"region": "ap"}})
	if err != nil || res.IsError {
		t.Fatalf("the Go SDK client: %+v %v", res, err)
	}
}

// TestListenProgress: in each revision, the progress the server sends
// while a call runs reaches the client during the call, under the
// client's own progress token.
func TestListenProgress(t *testing.T) {
	for _, version := range []string{ProtocolSessions, ProtocolStateless} {
		t.Run(version, func(t *testing.T) {
			s := startListen(t, "tools=slow")
			release := make(chan struct{})
			s.up.server.AddTool(&sdk.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
				func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "half"})
					<-release
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
				})
			progress := make(chan any, 4)
			client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1.0.0"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					progress <- req.Params.ProgressToken
				},
			})
			ctx := listenCtx(t)
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url, DisableStandaloneSSE: true},
				&sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			done := make(chan error, 1)
			go func() {
				p := &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{}}
				p.SetProgressToken("client-token")
				_, err := cs.CallTool(ctx, p)
				done <- err
			}()
			select {
			case tok := <-progress:
				if tok != "client-token" {
					t.Fatalf("progress under token %v", tok)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no progress while the call ran\n%s", s.log)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestListenCancelByClosing: under 2026-07-28 a client that closes a call's
// stream cancels the call: the guard closes the call's own stream to the
// server, which is how that revision cancels.
func TestListenCancelByClosing(t *testing.T) {
	closed := make(chan struct{})
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(closed)
		case <-time.After(20 * time.Second):
		}
	})
	sk, keys := rootKey(t)
	log := &syncBuffer{}
	p, err := New(Config{Ticket: mint(t, sk, "tools=slow"), Keys: keys, Now: fixedNow, Log: log,
		Profile: &Profile{Name: "t", Tools: map[string]ToolArgs{"slow": {ReadOnly: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	h, closeAll, err := p.ListenHandler(Listen{Addr: srv.Listener.Addr().String(), Upstream: &Upstream{URL: f.srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); closeAll() })

	body := strings.ReplaceAll(statelessCall, `"echo"`, `"slow"`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": ProtocolStateless, "Mcp-Method": "tools/call", "Mcp-Name": "slow"} {
		req.Header.Set(k, v)
	}
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitRequests(t, f, 1)
	cancel()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatalf("the call's stream to the server stayed open after the client closed its own\n%s", log)
	}
}

// TestMailboxBacklog: a request's mailbox keeps at most listenBacklog
// messages for a client that does not read them, drops progress past
// that, and always has room for the answer.
func TestMailboxBacklog(t *testing.T) {
	b := newMailbox()
	kept := 0
	for range 2 * listenBacklog {
		if b.put(laneMsg{data: []byte(`{}`)}) {
			kept++
		}
	}
	if kept != listenBacklog-1 {
		t.Fatalf("kept %d progress messages, want %d", kept, listenBacklog-1)
	}
	if !b.put(laneMsg{data: []byte(`{"id":1}`), answer: true}) {
		t.Fatal("the answer found no room")
	}
	q := b.take()
	if len(q) != listenBacklog || !q[len(q)-1].answer {
		t.Fatalf("took %d messages, the last an answer: %v", len(q), q[len(q)-1].answer)
	}
	select {
	case <-b.ready:
	default:
		t.Fatal("no wake-up for what was put")
	}
}
