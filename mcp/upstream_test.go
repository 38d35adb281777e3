package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

const stateless = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`

// fakeHTTP is a Streamable HTTP server whose answers the test writes: it
// records each request and hands it to answer.
type fakeHTTP struct {
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []fakeReq
	answer func(w http.ResponseWriter, r *http.Request, body string)
}

type fakeReq struct {
	method string
	header http.Header
	body   string
	done   chan struct{} // closed when the handler returns (the stream ends)
}

func newFakeHTTP(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, body string)) *fakeHTTP {
	f := &fakeHTTP{answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fr := fakeReq{r.Method, r.Header.Clone(), string(b), make(chan struct{})}
		defer close(fr.done)
		f.mu.Lock()
		f.reqs = append(f.reqs, fr)
		f.mu.Unlock()
		f.answer(w, r, string(b))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHTTP) requests() []fakeReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeReq(nil), f.reqs...)
}

// sse writes one event with msg and flushes it.
func sse(w http.ResponseWriter, msg string) {
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
	w.(http.Flusher).Flush()
}

// idOf is the id member of a JSON-RPC message, as it came.
func idOf(body string) string {
	var m struct{ ID json.RawMessage }
	json.Unmarshal([]byte(body), &m)
	return string(m.ID)
}

// startUpstream runs a proxy with the ticket's caveats (and receipts in
// logPath when set) between raw agent lines and the fake server.
func startUpstream(t *testing.T, f *fakeHTTP, logPath string, caveats ...string) *rawSetup {
	t.Helper()
	return startUpstreamWith(t, f, logPath, nil, caveats...)
}

// startUpstreamWith is startUpstream with the config edited first.
func startUpstreamWith(t *testing.T, f *fakeHTTP, logPath string, edit func(*Config), caveats ...string) *rawSetup {
	t.Helper()
	r := &rawSetup{pp: newPipes(), toAgent: make(chan string, 16), log: &syncBuffer{}, dir: realTempDir(t)}
	sk, keys := rootKey(t)
	cfg := Config{Ticket: mint(t, sk, caveats...), Keys: keys, Now: fixedNow, Log: r.log, Profile: &Profile{Name: "t", Tools: map[string]ToolArgs{
		"slow": {ReadOnly: true}, "echo": {ReadOnly: true},
	}}}
	if logPath != "" {
		rk, err := fixedkey.Signing(key.Ed25519, "receipts", "upstream receipts")
		if err != nil {
			t.Fatal(err)
		}
		l, err := chain.Open(logPath, rk, "test")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		cfg.Receipts = l
	}
	if edit != nil {
		edit(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	serveUpstream(t, p, r.pp, &Upstream{URL: f.srv.URL, Header: http.Header{"Authorization": {"Bearer up"}}})
	go readLines(r.pp.fromProxy, r.toAgent)
	return r
}

// TestStatelessHeaders: a 2026-07-28 request goes out with its revision,
// Mcp-Method and Mcp-Name (Base64 in the sentinel form when not plain
// ASCII), the upstream's own header, and no session; its answer, streamed,
// reaches the agent.
func TestStatelessHeaders(t *testing.T) {
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		sse(w, `{"jsonrpc":"2.0","id":`+idOf(body)+`,"result":{"content":[],"resultType":"complete"}}`)
	})
	r := startUpstream(t, f, "", "calls=10")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",`+stateless+`}}`)
	if got := r.agentGets(t); !strings.Contains(got, "notifications/progress") {
		t.Fatalf("agent got %s, want the progress first", got)
	}
	if got := r.agentGets(t); !strings.Contains(got, `"id":1,"result"`) {
		t.Fatalf("agent got %s", got)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"caf\u00e9",`+stateless+`}}`)
	r.agentGets(t)
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []string{"echo", "=?base64?Y2Fmw6k=?="} {
		h := reqs[i].header
		if h.Get("Mcp-Protocol-Version") != ProtocolStateless || h.Get("Mcp-Method") != "tools/call" ||
			h.Get("Mcp-Name") != want || h.Get("Mcp-Session-Id") != "" || h.Get("Authorization") != "Bearer up" ||
			!strings.Contains(h.Get("Accept"), "text/event-stream") {
			t.Errorf("request %d headers %v", i, h)
		}
	}
}

// TestUnsupportedRevision: an initialize asking for another revision than
// 2025-11-25, a request stating another revision than 2026-07-28, and a
// request with neither before an initialize are answered by the guard
// with UnsupportedProtocolVersionError, and never sent.
func TestUnsupportedRevision(t *testing.T) {
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		http.Error(w, "no", http.StatusTeapot)
	})
	r := startUpstream(t, f, "", "tools=echo")
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`,
	} {
		r.agentSays(t, msg)
		got := r.agentGets(t)
		if c := errorCode(t, got, fmt.Sprint(i+1)); c != codeUnsupportedVersion || !strings.Contains(got, `"supported":["2026-07-28","2025-11-25"]`) {
			t.Errorf("%s: agent got %s", msg, got)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// TestStatelessCancelClosesStream: under 2026-07-28 the agent's
// cancellation of a request is the closing of its stream (the
// notification is not sent); the agent is told its request has no answer.
func TestStatelessCancelClosesStream(t *testing.T) {
	closed := make(chan string, 4)
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		closed <- idOf(body)
	})
	r := startUpstream(t, f, "", "tools=echo")
	r.agentSays(t, `{"jsonrpc":"2.0","id":"p","method":"prompts/get","params":{"name":"x",`+stateless+`}}`)
	for len(f.requests()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"p",`+stateless+`}}`)
	select {
	case id := <-closed:
		if id != `"p"` {
			t.Fatalf("closed the stream of %s", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was not closed")
	}
	if got := r.agentGets(t); errorCode(t, got, `"p"`) != codeInternalError {
		t.Fatalf("agent got %s", got)
	}
	for _, req := range f.requests() {
		if strings.Contains(req.body, "notifications/cancelled") {
			t.Error("the cancellation was sent as a notification")
		}
	}
}

// TestStatelessCancelCall: under 2026-07-28 the agent's cancellation of a
// call the server is running closes the call's stream, which is how that
// revision cancels; the call may have run, so the agent hears that it
// counts as spent and the receipts show it allowed, then captured. Under
// 2025-11-25 the same cancellation is kept back: the call runs to its
// answer.
func TestStatelessCancelCall(t *testing.T) {
	closed := make(chan string, 4)
	release := make(chan struct{})
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if strings.Contains(body, `"initialize"`) {
			answerInitialize(w, "s1", body)
			return
		}
		if !strings.Contains(body, "tools/call") {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			closed <- idOf(body)
		case <-release:
			sse(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, idOf(body)))
		}
	})
	logPath := filepath.Join(t.TempDir(), "r.log")
	r := startUpstream(t, f, logPath, "tools=slow", "calls=5")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",`+stateless+`}}`)
	waitRequests(t, f, 1)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,`+stateless+`}}`)
	select {
	case id := <-closed:
		if id != "1" {
			t.Fatalf("closed the stream of %s", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call's stream was not closed")
	}
	if got := r.agentGets(t); errorCode(t, got, "1") != codeInternalError || !strings.Contains(got, "counts as spent") {
		t.Fatalf("agent got %s", got)
	}
	if got := receiptKinds(t, logPath); got != "allowed,captured" {
		t.Errorf("receipts %s", got)
	}

	// Under 2025-11-25 the cancellation is kept back.
	r.agentSays(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r.agentGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`)
	waitRequests(t, f, 4)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	time.Sleep(100 * time.Millisecond)
	close(release)
	if got := r.agentGets(t); !strings.Contains(got, `"result"`) || idOf(got) != "2" {
		t.Fatalf("agent got %s", got)
	}
	select {
	case id := <-closed:
		t.Fatalf("closed the stream of %s under 2025-11-25", id)
	default:
	}
}

// answerInitialize answers the initialize in body with a 2025-11-25
// session sid.
func answerInitialize(w http.ResponseWriter, sid, body string) {
	w.Header().Set("Mcp-Session-Id", sid)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}}`, idOf(body))
}

// waitRequests waits until the fake server has had n requests.
func waitRequests(t *testing.T, f *fakeHTTP, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); len(f.requests()) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server had %d requests, not %d", len(f.requests()), n)
		}
	}
}

// receiptKinds lists the kinds of the receipts in the log at path.
func receiptKinds(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for e, err := range chain.Scan(bytes.NewReader(b)) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Record.Kind.String())
	}
	return strings.Join(kinds, ",")
}

// TestStreamBrokenMidCall: a call whose stream ends before its answer
// may have run: the agent gets an error saying so, and the receipts show
// it allowed, then captured.
func TestStreamBrokenMidCall(t *testing.T) {
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		// The handler returns: the stream ends without the answer.
	})
	logPath := filepath.Join(t.TempDir(), "r.log")
	r := startUpstream(t, f, logPath, "tools=slow", "calls=5")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",`+stateless+`}}`)
	r.agentGets(t) // the progress
	if got := r.agentGets(t); errorCode(t, got, "1") != codeInternalError || !strings.Contains(got, "counts as spent") {
		t.Fatalf("agent got %s", got)
	}
	if got := receiptKinds(t, logPath); got != "allowed,captured" {
		t.Errorf("receipts %s", got)
	}
}

// TestSessionNotFound: under 2025-11-25 a 404 to a request in a session
// starts a new session (the agent's initialize again, under the guard's
// own id, its answer kept from the agent, then its initialized) and sends
// the request again in it; the agent sees one answer.
func TestSessionNotFound(t *testing.T) {
	for _, tc := range []struct {
		name string
		gone func(w http.ResponseWriter, id string)
	}{
		{"404", func(w http.ResponseWriter, _ string) { w.WriteHeader(http.StatusNotFound) }},
		// What servers built on the TypeScript SDK's example transports
		// answer (server-everything among them).
		{"400 about the session", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":%s}`, id)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { testSessionNotFound(t, tc.gone) })
	}
}

func testSessionNotFound(t *testing.T, gone func(w http.ResponseWriter, id string)) {
	var mu sync.Mutex
	session := 0
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(body, `"initialize"`):
			session++
			answerInitialize(w, fmt.Sprint("s", session), body)
		case r.Header.Get("Mcp-Session-Id") != fmt.Sprint("s", session):
			gone(w, idOf(body))
		case idOf(body) == "":
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, idOf(body))
		}
	})
	r := startUpstream(t, f, "", "tools=echo")
	r.agentSays(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`)
	if got := r.agentGets(t); !strings.Contains(got, `"id":0,"result"`) {
		t.Fatalf("agent got %s", got)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)
	r.agentGets(t)
	mu.Lock()
	session++ // the server forgets the session
	mu.Unlock()
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`)
	if got := r.agentGets(t); !strings.Contains(got, `"id":2,"result"`) {
		t.Fatalf("agent got %s", got)
	}
	var reinit, initialized int
	for _, req := range f.requests() {
		if strings.Contains(req.body, `"id":"tickettool-reinit-1"`) {
			reinit++
		}
		if strings.Contains(req.body, "notifications/initialized") && req.header.Get("Mcp-Session-Id") == "s3" {
			initialized++
		}
	}
	if reinit != 1 || initialized != 1 {
		t.Errorf("%d new initializes, %d initialized in the new session; want 1 and 1", reinit, initialized)
	}
	// When the agent leaves, the session is deleted.
	r.pp.toProxy.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		deleted := ""
		for _, q := range f.requests() {
			if q.method == http.MethodDelete {
				deleted = q.header.Get("Mcp-Session-Id")
			}
		}
		if deleted != "" {
			if deleted != "s3" {
				t.Errorf("deleted session %q, want s3", deleted)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session was not deleted when the agent left")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBadRequestNotAboutSession: a 400 that is not about the session is
// the server's answer: relayed, no new session.
func TestBadRequestNotAboutSession(t *testing.T) {
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch {
		case strings.Contains(body, `"initialize"`):
			answerInitialize(w, "s1", body)
		case idOf(body) == "":
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Bad Request: unknown argument"},"id":%s}`, idOf(body))
		}
	})
	r := startUpstream(t, f, "", "tools=echo")
	r.agentSays(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`)
	r.agentGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)
	if got := r.agentGets(t); !strings.Contains(got, "unknown argument") {
		t.Fatalf("agent got %s", got)
	}
	for _, req := range f.requests() {
		if strings.Contains(req.body, "tickettool-reinit") {
			t.Fatal("a new session was started")
		}
	}
}

func TestUpstreamValidate(t *testing.T) {
	for _, tc := range []struct {
		up   Upstream
		want string
	}{
		{Upstream{URL: "ftp://x/mcp"}, "http or https"},
		{Upstream{URL: "/mcp"}, "http or https"},
		{Upstream{URL: "https://user:pw@x/mcp"}, "credentials"},
		{Upstream{URL: "https://x/mcp", Header: http.Header{"Mcp-Session-Id": {"s"}}}, "set by the transport"},
		{Upstream{URL: "https://x/mcp", Header: http.Header{"Mcp-Param-Region": {"s"}}}, "set by the transport"},
		{Upstream{URL: "https://x/mcp", Header: http.Header{"X-Key": {"a\nb"}}}, "does not allow"},
		{Upstream{URL: "https://x/mcp", Header: http.Header{"Bad Name": {"v"}}}, "not a valid"},
	} {
		if err := tc.up.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.up, err, tc.want)
		}
	}
	if err := (&Upstream{URL: "https://x/mcp", Header: http.Header{"Authorization": {"Bearer k"}}}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"us-west1":           "us-west1",
		"Hello, 世界":          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":           "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":       "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// TestParamHeaders: the arguments a tool's inputSchema marks with
// x-mcp-header go out as Mcp-Param-NAME headers (nested properties too,
// integers in decimal, values outside plain ASCII in the Base64 form), and
// a tool whose annotations break the rules is dropped from tools/list.
func TestParamHeaders(t *testing.T) {
	list := `{"tools":[` +
		`{"name":"sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},` +
		`"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}},"q":{"type":"string"}}}},` +
		`{"name":"items","inputSchema":{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}},` +
		`{"name":"dup","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}},` +
		`{"name":"num","inputSchema":{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}},` +
		`{"name":"plain","inputSchema":{"type":"object"}}],"resultType":"complete"}`
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(body, `"tools/list"`) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, idOf(body), list)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[],"resultType":"complete"}}`, idOf(body))
	})
	r := startUpstream(t, f, "", "calls=10")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+stateless+`}}`)
	got := r.agentGets(t)
	for _, name := range []string{`"sql"`, `"plain"`} {
		if !strings.Contains(got, name) {
			t.Errorf("tools/list lost %s: %s", name, got)
		}
	}
	for _, name := range []string{`"items"`, `"dup"`, `"num"`} {
		if strings.Contains(got, name) {
			t.Errorf("tools/list kept %s: %s", name, got)
		}
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sql","arguments":{"region":"us-west1","opts":{"n":42},"q":"x"},`+stateless+`}}`)
	r.agentGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sql","arguments":{"region":"Hello, 世界"},`+stateless+`}}`)
	r.agentGets(t)
	reqs := f.requests()
	if h := reqs[1].header; h.Get("Mcp-Param-Region") != "us-west1" || h.Get("Mcp-Param-N") != "42" {
		t.Errorf("call headers %v", h)
	}
	if h := reqs[2].header; h.Get("Mcp-Param-Region") != "=?base64?SGVsbG8sIOS4lueVjA==?=" || h.Get("Mcp-Param-N") != "" {
		t.Errorf("call headers %v", h)
	}
}

// TestNoRedirect: a redirect is not followed, so the server's credential
// never goes to another address; the call gets an error and its budget
// back (the server refused it unread).
func TestNoRedirect(t *testing.T) {
	elsewhere := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, idOf(body))
	})
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		http.Redirect(w, r, elsewhere.srv.URL, http.StatusTemporaryRedirect)
	})
	r := startUpstream(t, f, "", "calls=10")
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",`+stateless+`}}`)
	if got := r.agentGets(t); errorCode(t, got, "1") != codeInternalError || !strings.Contains(got, "HTTP 307") {
		t.Fatalf("agent got %s", got)
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Errorf("the redirect was followed: %d requests elsewhere", n)
	}
}

// TestResumeStream: under 2025-11-25 a server may close a request's
// stream before its answer and let the client resume it (a GET with
// Last-Event-ID, after the retry it asked for): the guard does, and the
// agent gets the answer once.
func TestResumeStream(t *testing.T) {
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch {
		case strings.Contains(body, `"initialize"`):
			answerInitialize(w, "s1", body)
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "e1":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n")
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case idOf(body) == "":
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: e0\ndata:\n\n")
			fmt.Fprint(w, "id: e1\nretry: 10\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
			// The connection closes before the answer.
		}
	})
	logPath := filepath.Join(t.TempDir(), "r.log")
	r := startUpstream(t, f, logPath, "tools=slow")
	r.agentSays(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`)
	r.agentGets(t)
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	if got := r.agentGets(t); !strings.Contains(got, "notifications/progress") {
		t.Fatalf("agent got %s", got)
	}
	if got := r.agentGets(t); !strings.Contains(got, `"id":1,"result"`) {
		t.Fatalf("agent got %s", got)
	}
	resumed := 0
	for _, req := range f.requests() {
		if req.method == http.MethodGet && req.header.Get("Last-Event-ID") == "e1" && req.header.Get("Mcp-Session-Id") == "s1" {
			resumed++
		}
	}
	if resumed != 1 {
		t.Errorf("%d resumptions, want 1", resumed)
	}
	r.pp.toProxy.Close()
	time.Sleep(100 * time.Millisecond)
	if got := receiptKinds(t, logPath); got != "allowed,captured" {
		t.Errorf("receipts %s", got)
	}
}

// TestAnswerTooLong: an answer longer than the guard's limit, streamed or
// not, is never passed on whole: the agent gets an error, and the call,
// which ran, counts as spent.
func TestAnswerTooLong(t *testing.T) {
	big := strings.Repeat("x", 2000)
	f := newFakeHTTP(t, func(w http.ResponseWriter, r *http.Request, body string) {
		answer := `{"jsonrpc":"2.0","id":` + idOf(body) + `,"result":{"content":[{"type":"text","text":"` + big + `"}]}}`
		if strings.Contains(body, `"name":"echo"`) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, answer)
	})
	r := startUpstreamWith(t, f, "", func(c *Config) { c.MaxMessageBytes = 1024 }, "calls=10")
	for i, tool := range []string{"echo", "slow"} {
		id := fmt.Sprint(i + 1)
		r.agentSays(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"`+tool+`",`+stateless+`}}`)
		got := r.agentGets(t)
		if errorCode(t, got, id) != codeInternalError || !strings.Contains(got, "longer than the guard's limit") || strings.Contains(got, big) {
			t.Errorf("%s: agent got %.200s", tool, got)
		}
	}
}
