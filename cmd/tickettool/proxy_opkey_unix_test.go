//go:build unix

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/dpophttp"
)

// keyed sends method path under an Idempotency-Key with a fresh proof,
// once more on use_dpop_nonce.
func (c *client) keyed(t *testing.T, method, path, ticket, key string) (*http.Response, string) {
	t.Helper()
	send := func() (*http.Response, string) {
		r := c.prepare(t, method, path, ticket, "")
		r.Header.Set(dpophttp.IdempotencyKeyHeader, `"`+key+`"`)
		return c.send(t, r)
	}
	res, b := send()
	if res.StatusCode == 401 && strings.Contains(res.Header.Get("WWW-Authenticate"), "use_dpop_nonce") {
		res, b = send()
	}
	return res, b
}

// TestProxyOperationKeyAfterKill: a request under an Idempotency-Key
// through a proxy process, the proxy killed (SIGKILL) after the upstream
// answered, a new proxy on the same store: the same key gets the same
// response, byte for byte, the upstream was called once and the budget
// charged once.
func TestProxyOperationKeyAfterKill(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testOperationKeyAfterKill(t, "") })
	t.Run("redis", func(t *testing.T) {
		ok, err := redisCondition()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Skip(redisAddrEnv + " is not set")
		}
		testOperationKeyAfterKill(t, "redis://"+os.Getenv(redisAddrEnv))
	})
}

func testOperationKeyAfterKill(t *testing.T, store string) {
	k := newProxyKit(t)
	rec := &recorder{}
	up := httptest.NewServer(rec)
	defer up.Close()
	if store == "" {
		store = filepath.Join(k.dir, "store.db")
	}
	args := []string{"--upstream", up.URL, "--key", k.rootKey + ".pub", "--public-url", "https://api.example.test", "--store", store}
	tk := k.mint(t, "tools=POST", "calls=5")
	a := startProxy(t, args...)
	ca := &client{k: k, public: "https://api.example.test", base: "http://" + a.addr}
	res, first := ca.keyed(t, "POST", "/v1/orders", tk, "order-1")
	if res.StatusCode != 200 || !strings.Contains(first, "upstream saw POST /v1/orders") {
		t.Fatalf("first: %d %s\n%s", res.StatusCode, first, a.log())
	}
	a.cmd.Process.Kill()
	<-a.done

	b := startProxy(t, args...)
	cb := &client{k: k, public: "https://api.example.test", base: "http://" + b.addr}
	res, again := cb.keyed(t, "POST", "/v1/orders", tk, "order-1")
	if res.StatusCode != 200 || again != first || res.Header.Get(dpophttp.ReplayedHeader) != "true" {
		t.Fatalf("repeat: %d %q %v, want %q", res.StatusCode, again, res.Header, first)
	}
	if res, body := cb.keyed(t, "POST", "/v1/other", tk, "order-1"); res.StatusCode != 422 {
		t.Fatalf("another request under the key: %d %s", res.StatusCode, body)
	}
	if n := strings.Count(rec.all(), "POST /v1/orders"); n != 1 {
		t.Fatalf("the upstream saw %d requests:\n%s", n, rec.all())
	}
	os.WriteFile(filepath.Join(k.dir, "t"), []byte(tk), 0o600)
	spent := cliOK(t, "spent", "--key", k.rootKey+".pub", "--store", store, "@"+filepath.Join(k.dir, "t"))
	if !strings.Contains(spent, "calls limit 5 spent 1 ") {
		t.Fatalf("spent: %s", spent)
	}
}
