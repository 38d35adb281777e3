//go:build unix

package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Two proxy processes on one store accept a proof once between them:
// a request replayed, byte for byte, to the second is refused. They
// share their nonces through one --nonce-key.
func TestProxyReplayAcrossProcesses(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testReplayAcross(t, filepath.Join(t.TempDir(), "store.db"))
	})
	t.Run("redis", func(t *testing.T) {
		ok, err := redisCondition()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Skip(redisAddrEnv + " is not set")
		}
		testReplayAcross(t, "redis://"+os.Getenv(redisAddrEnv))
	})
}

func testReplayAcross(t *testing.T, store string) {
	k := newProxyKit(t)
	up := httptest.NewServer(&recorder{})
	defer up.Close()
	nonceKey := filepath.Join(k.dir, "nonce.key")
	cliOK(t, "keygen", "--alg", "hmac", "--out", nonceKey)
	args := []string{"--upstream", up.URL, "--key", k.rootKey + ".pub", "--public-url", "https://api.example.test",
		"--store", store, "--nonce-key", nonceKey}
	a, b := startProxy(t, args...), startProxy(t, args...)
	ca := &client{k: k, public: "https://api.example.test", base: "http://" + a.addr}
	cb := &client{k: k, public: "https://api.example.test", base: "http://" + b.addr}
	tk := k.mint(t, "tools=GET", "calls=5")
	if res, body := ca.do(t, "GET", "/v1/a", tk, ""); res.StatusCode != 200 {
		t.Fatalf("first proxy: %d %s", res.StatusCode, body)
	}
	cb.nonce = ca.nonce // one fleet: A's nonce is good at B
	r := ca.prepare(t, "GET", "/v1/a", tk, "")
	if res, body := ca.send(t, r); res.StatusCode != 200 {
		t.Fatalf("first proxy: %d %s", res.StatusCode, body)
	}
	replay, _ := http.NewRequest("GET", cb.base+"/v1/a", nil)
	replay.Header = r.Header.Clone()
	res, body := cb.send(t, replay)
	if res.StatusCode != 401 || !strings.Contains(res.Header.Get("WWW-Authenticate"), `error="invalid_dpop_proof"`) ||
		!strings.Contains(body, "replayed") {
		t.Fatalf("replay at the second proxy: %d %q %s", res.StatusCode, res.Header.Get("WWW-Authenticate"), body)
	}
	// A fresh proof is fine there, and the budget is the family's.
	if res, body := cb.do(t, "GET", "/v1/a", tk, ""); res.StatusCode != 200 {
		t.Fatalf("second proxy: %d %s", res.StatusCode, body)
	}
	for _, p := range []*proxyProc{a, b} {
		if strings.Contains(p.log(), tk[5:40]) {
			t.Fatalf("the proxy logged the ticket: %s", p.log())
		}
	}
	if !strings.Contains(b.log(), "refused GET /v1/a") || !strings.Contains(a.log(), "allowed GET /v1/a tool=GET") {
		t.Fatalf("logs:\n%s\n%s", a.log(), b.log())
	}
}

// A client that sends its headers slowly is cut off at --header-timeout.
func TestProxySlowHeaders(t *testing.T) {
	k := newProxyKit(t)
	p := startProxy(t, "--upstream", "http://127.0.0.1:1", "--key", k.rootKey+".pub", "--store", "memory",
		"--public-url", "http://api.example.test", "--header-timeout", "300ms")
	conn, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	io.WriteString(conn, "GET /v1/a HTTP/1.1\r\nHost: x\r\n") // and never the blank line
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, _ := io.ReadAll(conn)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the connection stayed open %v", d)
	}
	if s := string(b); s != "" && !strings.HasPrefix(s, "HTTP/1.1 408") && !strings.HasPrefix(s, "HTTP/1.1 400") {
		t.Fatalf("answer %q", s)
	}
}

// SIGTERM lets the request in flight finish, settles it (the budget is
// spent), and exits 0 with one line.
func TestProxySIGTERMSettles(t *testing.T) {
	k := newProxyKit(t)
	rec := &recorder{hold: make(chan struct{})}
	up := httptest.NewServer(rec)
	defer up.Close()
	store := filepath.Join(k.dir, "store.db")
	p := startProxy(t, "--upstream", up.URL, "--key", k.rootKey+".pub", "--store", store, "--no-nonce",
		"--public-url", "https://api.example.test")
	c := &client{k: k, public: "https://api.example.test", base: "http://" + p.addr}
	tk := k.mint(t, "tools=GET", "calls=3")
	done := make(chan int)
	go func() {
		res, _ := c.send(t, c.prepare(t, "GET", "/v1/slow", tk, ""))
		done <- res.StatusCode
	}()
	time.Sleep(300 * time.Millisecond) // the request reaches the upstream, which holds it
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	close(rec.hold)
	if code := <-done; code != 200 {
		t.Fatalf("the request in flight got %d", code)
	}
	<-p.done
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit status %d: %s", code, p.log())
	}
	if !strings.Contains(p.log(), "tickettool proxy: stopped by SIGTERM; every request in flight was settled\n") {
		t.Fatalf("stderr: %s", p.log())
	}
	tkFile := filepath.Join(k.dir, "t")
	os.WriteFile(tkFile, []byte(tk), 0o600)
	if out := cliOK(t, "spent", "--key", k.rootKey+".pub", "--store", store, "@"+tkFile); !strings.Contains(out, "spent 1 (captured 1, reserved 0) remaining 2") {
		t.Fatalf("spent: %s", out)
	}
}
