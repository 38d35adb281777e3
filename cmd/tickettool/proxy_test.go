package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// recorder is an upstream that records every request it gets, whole.
type recorder struct {
	mu   sync.Mutex
	seen []string // each request's method, URL, headers and body
	hold chan struct{}
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rec.hold != nil {
		<-rec.hold
	}
	var b bytes.Buffer
	r.Write(&b) // request line, headers, body
	rec.mu.Lock()
	rec.seen = append(rec.seen, b.String())
	rec.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "upstream saw %s %s auth=%q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
}

func (rec *recorder) all() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return strings.Join(rec.seen, "\n---\n")
}

// proxyKit is a root key, a holder and tickets in a temp directory.
type proxyKit struct {
	dir, rootKey string
	holder       *key.Holder
}

func newProxyKit(t *testing.T) *proxyKit {
	t.Helper()
	dir := t.TempDir()
	k := &proxyKit{dir: dir, rootKey: filepath.Join(dir, "root.key")}
	cliOK(t, "keygen", "--alg", "ed25519", "--out", k.rootKey)
	cliOK(t, "holder", "--alg", "es256", "--out", filepath.Join(dir, "agent.jwk"))
	var err error
	if k.holder, err = key.ReadHolderFile(filepath.Join(dir, "agent.jwk")); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k *proxyKit) mint(t *testing.T, caveats ...string) string {
	t.Helper()
	return cliOK(t, append([]string{"mint", "--key", k.rootKey, "--bind", filepath.Join(k.dir, "agent.jwk.pub"), "until=1h"}, caveats...)...)
}

// client sends DPoP requests as a holder does: a fresh proof per request,
// the last nonce the proxy gave, one retry on use_dpop_nonce.
type client struct {
	k      *proxyKit
	public string // the proxy's public URL
	base   string // where the proxy listens
	mu     sync.Mutex
	nonce  string
}

func (c *client) prepare(t testing.TB, method, path, ticket, body string) *http.Request {
	t.Helper()
	c.mu.Lock()
	nonce := c.nonce
	c.mu.Unlock()
	proof, err := dpop.Make(c.k.holder, method, c.public+path, dpop.MakeOptions{AccessToken: ticket, Nonce: nonce, IssuedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("Authorization", "DPoP "+ticket)
	r.Header.Set("DPoP", proof)
	return r
}

// send sends r and returns status, body and the response.
func (c *client) send(t testing.TB, r *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if n := res.Header.Get(dpophttp.NonceHeader); n != "" {
		c.mu.Lock()
		c.nonce = n
		c.mu.Unlock()
	}
	return res, string(b)
}

// do sends a request with a fresh proof, retrying once for a nonce.
func (c *client) do(t testing.TB, method, path, ticket, body string) (*http.Response, string) {
	t.Helper()
	res, b := c.send(t, c.prepare(t, method, path, ticket, body))
	if res.StatusCode == 401 && strings.Contains(res.Header.Get("WWW-Authenticate"), "use_dpop_nonce") {
		res, b = c.send(t, c.prepare(t, method, path, ticket, body))
	}
	return res, b
}

// inProcessProxy serves the proxy handler on a loopback test server.
func inProcessProxy(t *testing.T, k *proxyKit, up string, edit func(*proxyConfig)) (*client, *recorder) {
	t.Helper()
	rec := &recorder{}
	if up == "" {
		us := httptest.NewServer(rec)
		t.Cleanup(us.Close)
		up = us.URL
	}
	cfg, err := proxyConfigOf(up, "", "127.0.0.1:1", "https://api.example.test", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	_, keys, err := keysOf(k.rootKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	cfg.opts.Keys = keys
	if edit != nil {
		edit(cfg)
	}
	h, err := newProxyHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ps := httptest.NewServer(h)
	t.Cleanup(ps.Close)
	return &client{k: k, public: "https://api.example.test", base: ps.URL}, rec
}

// The upstream never sees the ticket, the proof or a discharge; it sees
// the proxy's own credentials, the body and the path.
func TestProxyTicketNeverUpstream(t *testing.T) {
	t.Setenv(upstreamAuthEnv, "Bearer upstream-secret")
	k := newProxyKit(t)
	c, rec := inProcessProxy(t, k, "", func(cfg *proxyConfig) {
		var err error
		if cfg.upstreamAuth, err = upstreamAuth(""); err != nil {
			t.Fatal(err)
		}
	})
	tk := k.mint(t, "tools=POST,GET", "paths=/v1/")
	r := c.prepare(t, "POST", "/v1/notes", tk, `{"summary":"ship it"}`)
	r.Header.Set(dpophttp.DischargeHeader, "dis1_irrelevant")
	r.Header.Set("X-Forwarded-Host", "evil.example.com")
	res, body := c.send(t, r)
	if res.StatusCode == 401 { // learn the nonce first
		r = c.prepare(t, "POST", "/v1/notes", tk, `{"summary":"ship it"}`)
		r.Header.Set(dpophttp.DischargeHeader, "dis1_irrelevant")
		res, body = c.send(t, r)
	}
	// The discharge does not decode: malformed. Without it, allowed.
	if res.StatusCode != 400 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	res, body = c.do(t, "POST", "/v1/notes", tk, `{"summary":"ship it"}`)
	if res.StatusCode != 200 || body != `upstream saw POST /v1/notes auth="Bearer upstream-secret"` {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	seen := rec.all()
	proofPart := strings.Split(r.Header.Get("DPoP"), ".")[2]
	for _, secret := range []string{tk, tk[len(tk)-40:], proofPart, "DPoP", "dis1_", "evil.example.com"} {
		if strings.Contains(seen, secret) {
			t.Fatalf("the upstream saw %q:\n%s", secret, seen)
		}
	}
	if !strings.Contains(seen, `{"summary":"ship it"}`) {
		t.Fatalf("the upstream did not get the body:\n%s", seen)
	}
}

func TestProxyRefusals(t *testing.T) {
	k := newProxyKit(t)
	c, rec := inProcessProxy(t, k, "", nil)
	tk := k.mint(t, "tools=GET", "paths=/v1/", "calls=1")
	res, body := c.do(t, "POST", "/v1/a", tk, "")
	if res.StatusCode != 403 || !strings.Contains(res.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
		t.Fatalf("status %d %q: %s", res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
	}
	res, body = c.do(t, "POST", "/v1/a", tk, `{"a":"`+strings.Repeat("x", dpophttp.DefaultMaxBodyBytes)+`"}`)
	if res.StatusCode != 413 {
		t.Fatalf("over the limit: status %d: %s", res.StatusCode, body)
	}
	// A body that is not JSON streams through, whatever its size.
	big := strings.Repeat("0123456789abcdef", 3<<16) // 3 MiB
	r := c.prepare(t, "PUT", "/v1/blob", k.mint(t, "tools=PUT"), "")
	r.Body, r.ContentLength = io.NopCloser(strings.NewReader(big)), int64(len(big))
	r.Header.Set("Content-Type", "application/octet-stream")
	if res, body = c.send(t, r); res.StatusCode == 401 {
		r = c.prepare(t, "PUT", "/v1/blob", k.mint(t, "tools=PUT"), "")
		r.Body, r.ContentLength = io.NopCloser(strings.NewReader(big)), int64(len(big))
		r.Header.Set("Content-Type", "application/octet-stream")
		res, body = c.send(t, r)
	}
	if res.StatusCode != 200 || !strings.Contains(rec.all(), big) {
		t.Fatalf("streamed body: %d %s", res.StatusCode, body)
	}
	if res, _ = c.do(t, "GET", "/v1/a", tk, ""); res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	res, body = c.do(t, "GET", "/v1/a", tk, "")
	if res.StatusCode != 403 || !strings.Contains(body, "budget of 1 calls is spent") {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	if n := strings.Count(rec.all(), "GET /v1/a "); n != 1 {
		t.Fatalf("the upstream got %d requests, want 1", n)
	}
	// The metadata.
	res, body = c.send(t, must(http.NewRequest("GET", c.base+"/.well-known/oauth-protected-resource", nil)))
	var m map[string]any
	if json.Unmarshal([]byte(body), &m) != nil || m["resource"] != "https://api.example.test" {
		t.Fatalf("metadata %d: %s", res.StatusCode, body)
	}
}

// An upstream that cannot be reached gives the budget back: nothing ran.
func TestProxyUnreachableReleases(t *testing.T) {
	k := newProxyKit(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	c, _ := inProcessProxy(t, k, dead.URL, nil)
	tk := k.mint(t, "tools=GET", "calls=1")
	for range 2 {
		if res, body := c.do(t, "GET", "/v1/a", tk, ""); res.StatusCode != 502 {
			t.Fatalf("status %d: %s", res.StatusCode, body)
		}
	}
}

// Concurrent clients through the proxy (run with -race): the budget
// allows exactly its calls, and each proof is admitted once.
func TestProxyConcurrentClients(t *testing.T) {
	k := newProxyKit(t)
	c, rec := inProcessProxy(t, k, "", nil)
	tk := k.mint(t, "tools=GET", "calls=30")
	c.do(t, "GET", "/v1/warm", tk, "") // learn the nonce (one call spent)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				r := c.prepare(t, "GET", "/v1/a", tk, "")
				replay := r.Clone(r.Context())
				res, _ := c.send(t, r)
				res2, _ := c.send(t, replay)
				mu.Lock()
				codes[res.StatusCode]++
				codes[1000+res2.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if codes[200] != 29 || codes[403] != 19 || codes[1401] != 29 || codes[1403] != 19 {
		t.Fatalf("codes %v", codes)
	}
	if n := strings.Count(rec.all(), "GET /v1/"); n != 30 {
		t.Fatalf("the upstream got %d requests, want 30", n)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// proxyProc is a tickettool proxy process.
type proxyProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *bytes.Buffer
	mu     *sync.Mutex
	done   chan struct{}
}

// startProxy starts a proxy process listening on a free loopback port
// and waits until it listens.
func startProxy(t *testing.T, args ...string) *proxyProc {
	t.Helper()
	cmd := exec.Command(guardBinary(t), append([]string{"proxy", "--listen", "127.0.0.1:0"}, args...)...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proxyProc{cmd: cmd, stderr: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if a, ok := strings.CutPrefix(line, "tickettool proxy: listening on "); ok {
				addr <- strings.SplitN(a, ",", 2)[0]
			}
		}
	}()
	go func() { cmd.Wait(); pw.Close(); close(p.done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-p.done })
	select {
	case p.addr = <-addr:
	case <-p.done:
		t.Fatalf("the proxy exited: %s", p.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("the proxy did not start: %s", p.log())
	}
	return p
}

func (p *proxyProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func routeOf(pattern, tool string) dpophttp.Route {
	return dpophttp.Route{Pattern: pattern, Tool: tool}
}

// A discharge that allowed the request is not forwarded either.
func TestProxyDischargeNeverUpstream(t *testing.T) {
	k := newProxyKit(t)
	c, rec := inProcessProxy(t, k, "", nil)
	root, err := key.ReadSigningFile(k.rootKey)
	if err != nil {
		t.Fatal(err)
	}
	lead, err := key.Generate(key.Ed25519, "lead")
	if err != nil {
		t.Fatal(err)
	}
	a := caveat.Approver{KeyID: "lead", Nonce: [16]byte{7}}
	copy(a.Key[:], fixedkey.Public(lead.Verifying()))
	now := time.Now()
	cs, err := caveat.ParseAll([]string{"tools=GET", "until=1h", "holder=" + k.holder.Thumbprint()}, now)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := token.Mint(root, append(cs, must(caveat.NewApproval(a))), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tk.Binding(0)
	x, err := token.Approve(lead, b, must(caveat.ParseAll([]string{"until=10m"}, now)), now)
	if err != nil {
		t.Fatal(err)
	}
	send := func() (*http.Response, string) {
		r := c.prepare(t, "GET", "/v1/a", tk.String(), "")
		r.Header.Set(dpophttp.DischargeHeader, x.String())
		return c.send(t, r)
	}
	res, body := send()
	if res.StatusCode == 401 {
		res, body = send()
	}
	if res.StatusCode != 200 {
		t.Fatalf("with the discharge: %d %s", res.StatusCode, body)
	}
	if seen := rec.all(); strings.Contains(seen, x.String()[:20]) || strings.Contains(seen, dpophttp.DischargeHeader) {
		t.Fatalf("the upstream saw the discharge:\n%s", seen)
	}
}
