package dpop_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/dpop"
)

// RFC 9449 §11.1: a jti is accepted once per htu within the
// window.
func TestReplaySameJTIRefused(t *testing.T) {
	es := newKey(t, "ES256", 1)
	cache := dpop.NewMemoryReplayCache(16)
	proof := mustMake(t, es, "POST", testURI, dpop.MakeOptions{JTI: "same"})
	p, err := dpop.Verify(proof, postToken, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Remember(cache, testNow); err != nil {
		t.Fatal(err)
	}
	// The same proof, and a fresh proof (new signature, e.g. a malleated
	// ECDSA one) with the same jti and htu, are refused.
	again := mustMake(t, es, "POST", "https://SERVER.example.com:443/token?x=1", dpop.MakeOptions{JTI: "same", IssuedAt: testNow.Add(time.Second)})
	for _, pr := range []string{proof, again} {
		p2, err := dpop.Verify(pr, postToken, testNow.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		wantRefused(t, p2.Remember(cache, testNow.Add(time.Second)), dpop.CheckReplay)
	}
	// Same jti, different htu: accepted.
	other := mustMake(t, es, "POST", "https://server.example.com/other", dpop.MakeOptions{JTI: "same"})
	p3, err := dpop.Verify(other, dpop.Expectations{Method: "POST", URI: "https://server.example.com/other"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := p3.Remember(cache, testNow); err != nil {
		t.Fatalf("same jti, other htu: %v", err)
	}
	// After RememberUntil the entry has expired and is accepted again.
	if err := p.Remember(cache, p.RememberUntil); err == nil {
		t.Fatal("accepted at the last instant of RememberUntil")
	}
	if err := p.Remember(cache, p.RememberUntil.Add(time.Nanosecond)); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
}

// Verifiers with different windows sharing one replay cache accept a
// proof once: it is remembered for the largest window any verifier may
// use, not only the window of the one that saw it first. A 60 s verifier
// accepts it at its iat; a 300 s one two minutes later, and one of the
// largest window at its last instant, refuse it.
func TestReplayAcrossWindows(t *testing.T) {
	es := newKey(t, "ES256", 1)
	cache := dpop.NewMemoryReplayCache(16)
	proof := mustMake(t, es, "POST", testURI, dpop.MakeOptions{IssuedAt: testNow})
	for i, v := range []struct {
		maxAge, skew time.Duration
		at           time.Time
	}{
		{time.Minute, 0, testNow},
		{5 * time.Minute, 0, testNow.Add(2 * time.Minute)},
		{dpop.MaxAgeLimit, dpop.FutureSkewLimit, testNow.Add(dpop.MaxAgeLimit)},
	} {
		exp := dpop.Expectations{Method: "POST", URI: testURI, MaxAge: v.maxAge, FutureSkew: v.skew}
		p, err := dpop.Verify(proof, exp, v.at)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Remember(cache, v.at)
		if i == 0 && err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			wantRefused(t, err, dpop.CheckReplay)
		}
	}
}

// RFC 9449 §5: the two token-request example proofs share a jti and are
// 2680 s apart, so a cache keyed on jti+htu accepts both in turn.
func TestReplayRFC9449SharedJTI(t *testing.T) {
	v := loadRFC9449(t)
	cache := dpop.NewMemoryReplayCache(4)
	for _, pv := range v.Proofs[:2] {
		now := time.Unix(pv.IAT, 0)
		p, err := dpop.Verify(rfcProof(t, pv.File), dpop.Expectations{Method: pv.HTM, URI: pv.HTU}, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Remember(cache, now); err != nil {
			t.Fatalf("%s: %v", pv.Name, err)
		}
	}
}

// A full cache drops expired entries first and otherwise refuses new ones
// (fails closed) rather than forget a live entry.
func TestMemoryReplayCacheBounded(t *testing.T) {
	c := dpop.NewMemoryReplayCache(2)
	k := func(i int) dpop.ReplayKey { return dpop.ReplayKey{JTI: fmt.Sprint(i), URI: testURI} }
	t0 := testNow
	if !c.Remember(k(1), t0.Add(10*time.Second), t0) || !c.Remember(k(2), t0.Add(20*time.Second), t0) {
		t.Fatal("refused while not full")
	}
	if c.Remember(k(3), t0.Add(30*time.Second), t0) {
		t.Fatal("full cache of live entries accepted a new key")
	}
	if c.Remember(k(1), t0.Add(10*time.Second), t0.Add(time.Second)) || c.Remember(k(2), t0.Add(20*time.Second), t0.Add(time.Second)) {
		t.Fatal("live entry forgotten")
	}
	if c.Len() != 2 {
		t.Fatalf("Len = %d", c.Len())
	}
	// k(1) expires after t0+10s; then k(3) fits, k(2) is still live.
	t1 := t0.Add(11 * time.Second)
	if !c.Remember(k(3), t1.Add(30*time.Second), t1) {
		t.Fatal("expired entry not evicted for a new one")
	}
	if c.Remember(k(2), t0.Add(20*time.Second), t1) {
		t.Fatal("live entry forgotten after eviction")
	}
	if c.Remember(k(4), t1.Add(30*time.Second), t1) {
		t.Fatal("over capacity")
	}
	if c.Len() != 2 {
		t.Fatalf("Len = %d", c.Len())
	}
	// Default capacity.
	if d := dpop.NewMemoryReplayCache(0); !d.Remember(k(1), t1, t0) {
		t.Fatal("default cache refused")
	}
	// Refusals by a full cache are reported as replay refusals.
	p := &dpop.Proof{ReplayKey: k(5), RememberUntil: t1.Add(time.Minute)}
	if err := p.Remember(c, t1); !errors.Is(err, dpop.ErrInvalid) {
		t.Fatalf("full cache: %v", err)
	}
}

// Under concurrent use exactly one Remember of a key wins (run with -race).
func TestMemoryReplayCacheConcurrent(t *testing.T) {
	c := dpop.NewMemoryReplayCache(1000)
	const workers, keys = 8, 100
	var wins [keys]atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys {
				now := testNow.Add(time.Duration(w) * time.Millisecond)
				if c.Remember(dpop.ReplayKey{JTI: fmt.Sprint(i), URI: testURI}, testNow.Add(time.Minute), now) {
					wins[i].Add(1)
				}
				_ = c.Len()
			}
		}()
	}
	wg.Wait()
	for i := range wins {
		if n := wins[i].Load(); n != 1 {
			t.Fatalf("key %d remembered %d times", i, n)
		}
	}
}
