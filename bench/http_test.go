package bench

import (
	"bufio"
	"context"
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
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// groupHTTP is the table of the HTTP binding's pairs.
const groupHTTP = "Over HTTP: the middleware and tickettool proxy"

// oneProofStore is the memory store with the DPoP replay entry dropped
// from every admission, on both sides of the middleware pair, so that
// one proof serves every operation (a fresh ES256 proof per operation
// would put a signature in both sides and dilute the ratio). The rest of
// the admission — revocations, budgets, the reservation and its
// verdict — is the memory store's.
type oneProofStore struct{ guard.Store }

func (s oneProofStore) Admit(ctx context.Context, a guard.Admission) (guard.Verdict, error) {
	a.Replay = nil
	return s.Store.Admit(ctx, a)
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// middlewarePair measures dpophttp's middleware deciding an allowed
// request of a bound HMAC ticket (its ES256 proof with the server's
// nonce, the reservation, the handler's settlement) against what it
// cannot avoid: verify.VerifyText of the ticket with the proof, and the
// store's admission of the decision.
func middlewarePair(tb testing.TB) pair {
	now := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	root := must(key.NewHMAC("root", fixedBytes(key.HMACBytes, 1)))(tb)
	keys := must(token.NewKeyring(root.Verifying()))(tb)
	holder := must(key.GenerateHolder(key.ES256))(tb)
	cs := must(caveat.ParseAll([]string{"tools=GET,POST", "paths=/v1/", "hosts=api.example.com", "until=1h",
		"holder=" + holder.Thumbprint()}, now))(tb)
	tk := must(token.Mint(root, cs, nil))(tb)
	tk = must(tk.Attenuate(must(caveat.ParseAll([]string{"tools=GET", "paths=/v1/orders/"}, now))(tb), nil))(tb)
	text := tk.String()
	const public = "https://api.example.com"
	store := oneProofStore{guard.NewMemoryStore()}
	mw := must(dpophttp.New(dpophttp.Options{Keys: keys, PublicURL: public, Store: store,
		Now: func() time.Time { return now }, NonceKey: fixedBytes(32, 3)}))(tb)
	h := mw.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	r := httptest.NewRequest("GET", "/v1/orders/7", nil)
	r.Header.Set("Authorization", "DPoP "+text)
	r.Header.Set("DPoP", must(dpop.Make(holder, "GET", public+"/v1/orders/7", dpop.MakeOptions{AccessToken: text, IssuedAt: now}))(tb))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	nonce := w.Header().Get(dpophttp.NonceHeader)
	if w.Code != 401 || nonce == "" {
		tb.Fatalf("nonce challenge: %d %s", w.Code, w.Body)
	}
	proof := must(dpop.Make(holder, "GET", public+"/v1/orders/7", dpop.MakeOptions{AccessToken: text, Nonce: nonce, IssuedAt: now}))(tb)
	r.Header.Set("DPoP", proof)
	dw := &discard{h: http.Header{}}
	mwOp := func() error {
		clear(dw.h)
		h.ServeHTTP(dw, r)
		if len(dw.h["Www-Authenticate"]) > 0 {
			return fmt.Errorf("middleware refused: %v", dw.h)
		}
		return nil
	}
	var d verify.Decision
	req := &caveat.Request{Tool: "GET", Op: "get", Paths: []string{"/v1/orders/7"}, URLs: []string{public + "/v1/orders/7"},
		Audience: "api.example.com", Holder: &caveat.HolderProof{Proof: proof, Method: "GET", URI: public + "/v1/orders/7", Nonce: nonce}}
	ctx := context.Background()
	floorOp := func() error {
		if err := verify.VerifyText(&d, text, req, keys, now, nil); err != nil {
			return err
		}
		if !d.Allowed {
			return fmt.Errorf("refused: %v", d.Refusals)
		}
		a := guard.Admission{Request: guard.NewRequestID(), Blocks: d.BlockIDs, Budgets: d.Budgets, Now: now,
			HoldUntil: now.Add(dpophttp.DefaultHold), Replay: &guard.ReplayEntry{Key: d.Proof.ReplayKey, Until: d.Proof.RememberUntil}}
		v, err := store.Admit(ctx, a)
		if err == nil && !v.Admitted {
			err = fmt.Errorf("not admitted: %v", v.Reason)
		}
		return err
	}
	for _, op := range []func() error{mwOp, floorOp} {
		if err := op(); err != nil {
			tb.Fatal(err)
		}
	}
	return pair{group: groupHTTP, name: "dpophttp middleware, allowed bound request (HMAC ticket, ES256 proof, nonce, memory store) ÷ (verify.VerifyText with the proof + the store's admission)",
		a: serial("VerifyText + admission", floorOp), b: serial("dpophttp middleware", mwOp),
		target: &target{text: "≤ 1.15×", limit: 1.15}}
}

// proxyPairs measure tickettool proxy's throughput (a static build, as a
// process) on an allowed HMAC bearer request, against a bare
// httputil.ReverseProxy (this test binary, as a process) to the same
// upstream, both driven over loopback by the same 4 concurrent clients.
func proxyPairs(tb testing.TB, bs *binaries) []pair {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	tb.Cleanup(up.Close)
	dir := filepath.Join(bs.dir, "proxy")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	rootKey := filepath.Join(dir, "root.key")
	run(tb, dir, nil, bs.static, "keygen", "--alg", "hmac", "--out", rootKey, "--kid", "root")
	tk := run(tb, dir, nil, bs.static, "mint", "--key", rootKey, "tools=GET", "paths=/v1/", "until=24h")
	bare := startServer(tb, "bare httputil.ReverseProxy", []string{"BENCH_BARE_PROXY=" + up.URL}, os.Args[0])
	barePair := clientSide("bare httputil.ReverseProxy", bare, "")
	stores := []struct{ name, loc string }{{"memory store", "memory"}, {"SQLite store", filepath.Join(dir, "store.db")}}
	if a := os.Getenv("TICKETTOOL_REDIS_ADDR"); a != "" {
		stores = append(stores, struct{ name, loc string }{"Redis store", "redis://" + a})
	}
	var ps []pair
	for _, s := range stores {
		addr := startServer(tb, "tickettool proxy", nil, bs.static, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL,
			"--key", rootKey, "--store", s.loc, "--bearer", "--public-url", "http://api.example.com")
		p := pair{group: groupHTTP, name: "`tickettool proxy` throughput, allowed HMAC bearer request (" + s.name + ", no receipts) ÷ a bare httputil.ReverseProxy",
			a: barePair, b: clientSide("tickettool proxy ("+s.name+")", addr, tk), wall: true, speedup: true,
			batch: 250 * time.Millisecond}
		if s.loc == "memory" {
			p.target = &target{text: "≥ 0.7×", limit: 0.7, atLeast: true}
		}
		ps = append(ps, p)
	}
	return ps
}

// clientSide sends GET /v1/orders/7 to addr from 4 goroutines over
// kept-alive connections, with the ticket as a Bearer credential.
func clientSide(name, addr, ticket string) side {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}}
	u := "http://" + addr + "/v1/orders/7"
	return callers(4, name, func() error {
		r, _ := http.NewRequest("GET", u, nil)
		if ticket != "" {
			r.Header.Set("Authorization", "Bearer "+ticket)
		}
		res, err := c.Do(r)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("%s: status %d", name, res.StatusCode)
		}
		return nil
	})
}

// startServer starts a server process that prints "listening on ADDR"
// on standard error, and returns ADDR; the process is killed at cleanup.
func startServer(tb testing.TB, label string, env []string, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			go io.Copy(io.Discard, stderr) // the decision log
			return strings.SplitN(rest, ",", 2)[0]
		}
	}
	tb.Fatalf("%s did not start", label)
	return ""
}

// bareProxy is the test binary as a bare reverse proxy to upstream, the
// other side of the proxy pairs: httputil.ReverseProxy as tickettool
// proxy configures it (Rewrite with SetURL), without the middleware.
func bareProxy(upstream string) {
	u, err := url.Parse(upstream)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "listening on %s\n", ln.Addr())
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) }}
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintln(os.Stderr, srv.Serve(ln))
	os.Exit(1)
}

// TestHTTPSides: each side of the HTTP pairs runs, allowed (the pairs
// themselves run only with -pairs).
func TestHTTPSides(t *testing.T) {
	p := middlewarePair(t)
	for _, s := range []side{p.a, p.b} {
		if err := s.run(3); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
}

// httpPairs are the HTTP binding's pairs: the middleware in process, the
// proxy as processes, the MCP guard's listener in process.
func httpPairs(tb testing.TB, bs *binaries) []pair {
	return append(append([]pair{middlewarePair(tb)}, proxyPairs(tb, bs)...), listenPairs(tb)...)
}
