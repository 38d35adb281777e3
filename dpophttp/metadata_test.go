package dpophttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestMetadata(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.PublicURL = "https://api.example.com/mcp/"
		o.ResourceMetadata = "https://api.example.com/.well-known/oauth-protected-resource/mcp"
	})
	if p := f.mw.MetadataPath(); p != "/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("path %q", p)
	}
	w := httptest.NewRecorder()
	f.mw.MetadataHandler("notes").ServeHTTP(w, httptest.NewRequest("GET", f.mw.MetadataPath(), nil))
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	want := `{"bearer_methods_supported":["header"],"dpop_bound_access_tokens_required":true,"dpop_signing_alg_values_supported":["ES256","EdDSA","Ed25519"],"resource":"https://api.example.com/mcp","resource_name":"notes"}`
	if got, _ := json.Marshal(m); string(got) != want {
		t.Fatalf("metadata %s\nwant     %s", got, want)
	}
	w = httptest.NewRecorder()
	f.mw.MetadataHandler("").ServeHTTP(w, httptest.NewRequest("POST", f.mw.MetadataPath(), nil))
	if w.Code != 405 {
		t.Fatalf("POST: %d", w.Code)
	}
	// Every challenge names the metadata.
	w = f.do(httptest.NewRequest("GET", "/x", nil))
	if ch := w.Header().Get("WWW-Authenticate"); !strings.Contains(ch, `resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("challenge %q", ch)
	}
	// The public URL's prefix is part of htu.
	tk := f.mint(true, "tools=GET", "paths=/mcp/")
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Set("Authorization", "DPoP "+tk)
	r.Header.Set("DPoP", f.proofBy(f.holder, "GET", "https://api.example.com/mcp/x", tk, f.nonce()))
	if w := f.do(r); w.Code != 200 {
		t.Fatalf("prefixed: %d %s", w.Code, w.Body)
	}
	g := newFixture(t, func(o *Options) { o.AllowBearer = true })
	w = httptest.NewRecorder()
	g.mw.MetadataHandler("").ServeHTTP(w, httptest.NewRequest("GET", g.mw.MetadataPath(), nil))
	if !strings.Contains(w.Body.String(), `"dpop_bound_access_tokens_required":false`) {
		t.Fatalf("metadata with bearer: %s", w.Body)
	}
}

// Concurrent clients on one middleware: each proof is admitted once,
// budgets hold exactly (run with -race).
func TestConcurrentClients(t *testing.T) {
	f := newFixture(t, nil)
	tk := f.mint(true, "tools=GET", "calls=40")
	const clients, each = 8, 8
	reqs := make([][]*httptestRequest, clients)
	for c := range reqs {
		for range each {
			r := f.request("GET", "/v1/a", tk, nil)
			reqs[c] = append(reqs[c], &httptestRequest{r: r, proof: r.Header.Get("DPoP")})
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, q := range reqs[c] {
				w := f.do(q.r)
				// The same proof again: a replay of an admitted proof, or
				// refused again for the budget (a refused proof is not
				// recorded).
				r2 := q.r.Clone(q.r.Context())
				w2 := f.do(r2)
				mu.Lock()
				codes[w.Code]++
				codes[w2.Code+1000]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if codes[200] != 40 || codes[403] != 24 || codes[1401] != 40 || codes[1403] != 24 || f.served.Load() != 40 {
		t.Fatalf("codes %v, served %d", codes, f.served.Load())
	}
}

type httptestRequest struct {
	r     *http.Request
	proof string
}
