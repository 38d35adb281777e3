//go:build unix

package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/token"
)

// e2eHTTPServerEnv names the entry script of the reference server-everything
// (mcp/testdata/e2e-http/install.sh prints it).
const e2eHTTPServerEnv = "TICKETTOOL_E2E_HTTP_SERVER"

// everything is the reference server-everything in its Streamable HTTP
// mode (protocol 2025-11-25: the pinned server speaks no later revision),
// behind a recording reverse proxy the guard talks to.
type everything struct {
	cmd         *exec.Cmd
	stderr      *e2eBuffer
	rec         *recordingProxy
	node, entry string
	port        int
}

func startEverything(t *testing.T, node, entry string) *everything {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ev := &everything{node: node, entry: entry, port: port}
	t.Cleanup(func() { ev.kill() })
	ev.start(t)
	target, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", port))
	ev.rec = newRecordingProxy(t, target)
	return ev
}

// start runs the server on its port and waits until it listens.
func (ev *everything) start(t *testing.T) {
	t.Helper()
	ev.stderr = &e2eBuffer{}
	ev.cmd = exec.Command(ev.node, ev.entry, "streamableHttp")
	ev.cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", ev.port))
	ev.cmd.Stdout, ev.cmd.Stderr = ev.stderr, ev.stderr
	ev.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := ev.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(e2eTimeout)
	for !strings.Contains(ev.stderr.String(), "listening on port") {
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not start:\n%s", ev.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill ends the server's process group at once, as a crash would.
func (ev *everything) kill() {
	if ev.cmd.Process != nil {
		syscall.Kill(-ev.cmd.Process.Pid, syscall.SIGKILL)
		ev.cmd.Wait()
	}
}

// recordingProxy passes every request on to the server, streaming the
// answers, and keeps each request's headers and body; on demand it answers
// the next request of a session with 404, as a server that forgot the
// session does.
type recordingProxy struct {
	srv *httptest.Server
	mu  sync.Mutex
	all []recorded
	// expire: the next request with an Mcp-Session-Id is answered 404.
	expire bool
}

type recorded struct {
	method string
	header http.Header
	body   string
}

func newRecordingProxy(t *testing.T, target *url.URL) *recordingProxy {
	r := &recordingProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // relay every write of a stream at once
	rp.ErrorLog = nil
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		r.mu.Lock()
		r.all = append(r.all, recorded{req.Method, req.Header.Clone(), string(body)})
		expire := r.expire && req.Header.Get("Mcp-Session-Id") != ""
		if expire {
			r.expire = false
		}
		r.mu.Unlock()
		if expire {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		rp.ServeHTTP(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recordingProxy) requests() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.all...)
}

func (r *recordingProxy) expireSession() {
	r.mu.Lock()
	r.expire = true
	r.mu.Unlock()
}

// TestE2EHTTPEverything drives `tickettool mcp --upstream` with the Go SDK
// client against the real server-everything over Streamable HTTP
// (2025-11-25), through a recording proxy: allowed, refused by caveat, by
// subject and by budget, progress while a call streams, a cancelled call,
// a session the server forgets (404) and the new one, the server killed
// mid-call; the server never sees the ticket or a proof, and does see the
// credential from the header file.
func TestE2EHTTPEverything(t *testing.T) {
	entry := os.Getenv(e2eHTTPServerEnv)
	if entry == "" {
		msg := e2eHTTPServerEnv + " is not set: run mcp/testdata/e2e-http/install.sh and set it to the path it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("server-everything needs node: %v", err)
	}
	e := newE2E(t, node, entry)
	ev := startEverything(t, node, entry)
	headers := filepath.Join(e.keys, "upstream.headers")
	if err := os.WriteFile(headers, []byte("# the server's own credential\nAuthorization: Bearer upstream-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The main ticket is bound to the guard's holder key: the guard holds
	// the key, so no proof travels, to the server least of all.
	e.tt(t, "holder", "--alg", "eddsa", "--out", "guard.jwk")
	ticket := e.mint(t, "--bind", "guard.jwk.pub", "tools=ev/echo,ev/trigger-long-running-operation", "calls=9", "until=10m")

	var progress sync.Map // token -> time of the first progress
	stderr := &e2eBuffer{}
	defer func() {
		if t.Failed() {
			t.Logf("guard:\n%s\nserver:\n%s", stderr, ev.stderr)
		}
	}()
	connect := func(t *testing.T, ticket string, flags ...string) *sdk.ClientSession {
		t.Helper()
		client := sdk.NewClient(&sdk.Implementation{Name: "e2e-agent", Version: "1.0.0"}, &sdk.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
				progress.LoadOrStore(fmt.Sprint(req.Params.ProgressToken), time.Now())
			},
		})
		ticketFile := filepath.Join(t.TempDir(), "ticket")
		if err := os.WriteFile(ticketFile, []byte(ticket), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(e.bin, "mcp", "--ticket-file", ticketFile, "--key", filepath.Join(e.keys, "root.key.pub"),
			"--receipts", e.log, "--receipt-key", filepath.Join(e.keys, "rk.key"), "--server-name", "ev",
			"--profile", "everything", "--upstream", ev.rec.srv.URL+"/mcp", "--upstream-header-file", headers)
		cmd.Args = append(cmd.Args, flags...)
		cmd.Stderr = stderr
		cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
			&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connect: %v\n%s\n%s", err, stderr, ev.stderr)
		}
		return cs
	}
	ctx := context.Background()
	cs := connect(t, ticket, "--holder-key", filepath.Join(e.keys, "guard.jwk"))
	call := func(t *testing.T, ctx context.Context, tool string, args map[string]any, token string) (string, bool, error) {
		t.Helper()
		return callText(ctx, cs, tool, args, token)
	}
	// sent counts the tools/call requests to tool the server was sent.
	sent := func(tool string) int {
		n := 0
		for _, r := range ev.rec.requests() {
			if strings.Contains(r.body, `"method":"tools/call"`) && strings.Contains(r.body, `"name":"`+tool+`"`) {
				n++
			}
		}
		return n
	}

	t.Run("allowed", func(t *testing.T) {
		txt, isErr, err := call(t, e2eCtx(t), "echo", map[string]any{"message": "hello"}, "")
		if err != nil || isErr || !strings.Contains(txt, "hello") {
			t.Fatalf("echo: %q %v %v", txt, isErr, err)
		}
	})
	t.Run("refused by caveat, never sent", func(t *testing.T) {
		txt, isErr, err := call(t, e2eCtx(t), "get-sum", map[string]any{"a": 1, "b": 2}, "")
		if err != nil || !isErr || !strings.Contains(txt, "caveat tools") || sent("get-sum") != 0 {
			t.Fatalf("get-sum: %q %v %v (%d sent)", txt, isErr, err, sent("get-sum"))
		}
	})
	t.Run("refused by subject, never sent", func(t *testing.T) {
		hcs := connect(t, e.mint(t, "tools=ev/gzip-file-as-resource", "hosts=allowed.example", "until=10m"))
		defer hcs.Close()
		txt, isErr, err := callText(e2eCtx(t), hcs, "gzip-file-as-resource", map[string]any{"name": "x.gz", "data": "https://evil.example/x"}, "")
		if err != nil || !isErr || !strings.Contains(txt, "caveat hosts") || sent("gzip-file-as-resource") != 0 {
			t.Fatalf("gzip: %q %v %v (%d sent)", txt, isErr, err, sent("gzip-file-as-resource"))
		}
		// Without the URL argument the server fetches a default of its
		// own: no subject, so the hosts caveat refuses.
		txt, isErr, err = callText(e2eCtx(t), hcs, "gzip-file-as-resource", map[string]any{"name": "x.gz"}, "")
		if err != nil || !isErr || !strings.Contains(txt, "caveat hosts") || sent("gzip-file-as-resource") != 0 {
			t.Fatalf("gzip without data: %q %v %v", txt, isErr, err)
		}
	})
	t.Run("progress while streaming", func(t *testing.T) {
		start := time.Now()
		txt, isErr, err := call(t, e2eCtx(t), "trigger-long-running-operation", map[string]any{"duration": 2, "steps": 4}, "p1")
		end := time.Now()
		if err != nil || isErr {
			t.Fatalf("long-running: %q %v %v", txt, isErr, err)
		}
		first, ok := progress.Load("p1")
		if !ok {
			t.Fatal("no progress reached the agent")
		}
		if at := first.(time.Time); at.Sub(start) > end.Sub(start)/2 {
			t.Errorf("the first progress came %v into a call of %v: not relayed as it came", at.Sub(start), end.Sub(start))
		}
	})
	t.Run("cancelled call", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		if _, _, err := call(t, cctx, "trigger-long-running-operation", map[string]any{"duration": 2, "steps": 2}, ""); err == nil {
			t.Fatal("a cancelled call returned a result")
		}
		// The guard kept the cancellation back and waits for the answer;
		// the session goes on.
		if txt, isErr, err := call(t, e2eCtx(t), "echo", map[string]any{"message": "after"}, ""); err != nil || isErr {
			t.Fatalf("echo after a cancellation: %q %v %v", txt, isErr, err)
		}
	})
	t.Run("session expired", func(t *testing.T) {
		inits := countInits(ev.rec.requests())
		ev.rec.expireSession()
		txt, isErr, err := call(t, e2eCtx(t), "echo", map[string]any{"message": "again"}, "")
		if err != nil || isErr || !strings.Contains(txt, "again") {
			t.Fatalf("echo after a 404: %q %v %v", txt, isErr, err)
		}
		if got := countInits(ev.rec.requests()); got != inits+1 {
			t.Errorf("%d initialize requests after the 404, want %d", got, inits+1)
		}
	})
	t.Run("budget", func(t *testing.T) {
		var last string
		for i := 0; i < 6; i++ {
			txt, isErr, err := call(t, e2eCtx(t), "echo", map[string]any{"message": "n"}, "")
			if err != nil {
				t.Fatal(err)
			}
			if isErr {
				last = txt
				break
			}
		}
		if !strings.Contains(last, "budget of 9 calls is spent") {
			t.Fatalf("budget: last refusal %q", last)
		}
	})
	t.Run("nothing of the ticket upstream", func(t *testing.T) {
		reqs := ev.rec.requests()
		auth := 0
		for _, r := range reqs {
			all := r.body + fmt.Sprint(r.header)
			if strings.Contains(all, token.Prefix) || strings.Contains(all, ticket[len(token.Prefix):len(token.Prefix)+24]) ||
				strings.Contains(strings.ToLower(all), "dpop") || strings.Contains(all, "eyJ") { // a JWS, as a proof is
				t.Errorf("the server saw the ticket or a proof: %s %v %s", r.method, r.header, r.body)
			}
			if r.header.Get("Authorization") == "Bearer upstream-secret" {
				auth++
			}
		}
		if auth != len(reqs) || len(reqs) == 0 {
			t.Errorf("%d of %d requests carried the header file's credential", auth, len(reqs))
		}
	})
	t.Run("server restarted", func(t *testing.T) {
		// A new process knows none of the old one's sessions and answers
		// 400 (not the transport's 404): the guard starts a new session
		// and sends the call again in it.
		rcs := connect(t, e.mint(t, "tools=ev/echo", "until=10m"))
		defer rcs.Close()
		if _, isErr, err := callText(e2eCtx(t), rcs, "echo", map[string]any{"message": "before"}, ""); err != nil || isErr {
			t.Fatalf("echo before the restart: %v %v", isErr, err)
		}
		inits := countInits(ev.rec.requests())
		ev.kill()
		ev.start(t)
		txt, isErr, err := callText(e2eCtx(t), rcs, "echo", map[string]any{"message": "after"}, "")
		if err != nil || isErr || !strings.Contains(txt, "after") {
			t.Fatalf("echo after the restart: %q %v %v\n%s", txt, isErr, err, ev.stderr)
		}
		if got := countInits(ev.rec.requests()); got != inits+1 {
			t.Errorf("%d initialize requests after the restart, want %d", got, inits+1)
		}
	})
	t.Run("server killed mid-call", func(t *testing.T) {
		kcs := connect(t, e.mint(t, "tools=ev/trigger-long-running-operation", "until=10m"))
		defer kcs.Close()
		done := make(chan error, 1)
		go func() {
			_, _, err := callText(e2eCtx(t), kcs, "trigger-long-running-operation", map[string]any{"duration": 30, "steps": 30}, "")
			done <- err
		}()
		time.Sleep(time.Second)
		ev.kill()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "counts as spent") {
				t.Fatalf("got %v, want the guard's error that the call counts as spent", err)
			}
		case <-time.After(e2eTimeout):
			t.Fatal("the agent was left waiting")
		}
	})
	cs.Close()
	// Every allowed call is settled, captured: the killed server's call
	// too (its stream broke: it may have run), and the cancelled one,
	// whose answer the guard waited for.
	open := map[string]bool{}
	allowed := 0
	for line := range strings.Lines(e.tt(t, "receipt", "show", "--json", e.log)) {
		var r struct{ Kind, Note string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("receipt show --json: %v: %s", err, line)
		}
		switch r.Kind {
		case "allowed":
			allowed++
			open[r.Note] = true
		case "captured":
			if !open[r.Note] {
				t.Errorf("captured %s: no allowed call open under that request", r.Note)
			}
			delete(open, r.Note)
		case "released":
			t.Errorf("released %s: every allowed call here ran, or may have", r.Note)
		}
	}
	if allowed < 10 || len(open) != 0 {
		t.Errorf("%d allowed calls, %d never settled: %v", allowed, len(open), open)
	}
}

func countInits(reqs []recorded) int {
	n := 0
	for _, r := range reqs {
		if strings.Contains(r.body, `"method":"initialize"`) {
			n++
		}
	}
	return n
}

// callText calls a tool and returns the text of its result and whether it
// is an error result.
func callText(ctx context.Context, cs *sdk.ClientSession, tool string, args map[string]any, token string) (string, bool, error) {
	p := &sdk.CallToolParams{Name: tool, Arguments: args}
	if token != "" {
		p.SetProgressToken(token)
	}
	res, err := cs.CallTool(ctx, p)
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
