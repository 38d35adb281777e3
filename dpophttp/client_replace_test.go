package dpophttp_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/key"
)

// The ticket is replaced while requests are in flight: every request
// carries one ticket and a proof for that same ticket (the server checks
// ath against the ticket as sent), both tickets are used, and a request
// after the last Replace carries the last ticket. Run under -race.
func TestTransportReplaceConcurrently(t *testing.T) {
	h := newHolder(t, key.ES256)
	tk1, tk2 := mintFor(t, h), mintFor(t, h, "calls=5")
	s := newFakeServer(t, h.Thumbprint(), "n-1")
	s.tickets = map[string]bool{tk1.String(): true, tk2.String(): true}
	tr, err := dpophttp.NewTransport(tk1, h, dpophttp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: tr}
	const workers, each = 6, 15
	var wg sync.WaitGroup
	errs := make(chan string, workers*each+1)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				resp, err := c.Post(s.URL+"/x", "text/plain", strings.NewReader("b"))
				if err != nil {
					errs <- err.Error()
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					errs <- resp.Status
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 40 {
			if err := tr.Replace(pick(i%2 == 0, tk1, tk2), h); err != nil {
				errs <- err.Error()
			}
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if err := tr.Replace(tk2, h); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(s.URL + "/last")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := s.requests()
	used := map[string]int{}
	for _, r := range got {
		used[r.auth]++
	}
	if used["DPoP "+tk1.String()] == 0 || used["DPoP "+tk2.String()] == 0 {
		t.Logf("tickets used: %d and %d (the scheduler never interleaved a Replace)", used["DPoP "+tk1.String()], used["DPoP "+tk2.String()])
	}
	if last := got[len(got)-1]; last.path != "/last" || last.auth != "DPoP "+tk2.String() || last.status != 200 {
		t.Fatalf("after Replace: %s %d", last.path, last.status)
	}
}

func pick[T any](first bool, a, b T) T {
	if first {
		return a
	}
	return b
}
