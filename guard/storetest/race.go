package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// A step asked with a context already done fails with ErrStore (and the
// context's error), and changes nothing.
func testCancelled(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	b := Calls(c, 0, 5)
	done, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	<-done.Done()
	a := Admission(c, now, b)
	_, err := s.Admit(done, a)
	wantErr(t, err, guard.ErrStore)
	wantErr(t, err, context.DeadlineExceeded)
	wantErr(t, s.Revoke(done, guard.Revocation{Family: c[0], Blocks: c}, now), guard.ErrStore)
	if _, err := s.Spent(done, c[0], a.Budgets); !errors.Is(err, guard.ErrStore) {
		t.Fatalf("spent: %v, want ErrStore", err)
	}
	if _, err := s.Revoked(done, c[0], c); !errors.Is(err, guard.ErrStore) {
		t.Fatalf("revoked: %v, want ErrStore", err)
	}
	wantSpent(t, s, c[0], a.Budgets, 0)
	if i, err := s.Revoked(ctx, c[0], c); i != -1 || err != nil {
		t.Fatalf("revoked after a cancelled revoke: %d, %v", i, err)
	}
}

// A closed handle fails every step with ErrStore.
func testClosed(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Admit(ctx, Admission(c, now, Calls(c, 0, 1))); !errors.Is(err, guard.ErrStore) {
		t.Fatalf("admit after close: %v, want ErrStore", err)
	}
}

// Racing callers, on two handles, for a calls budget of k: exactly k are
// admitted.
func testRaceCalls(t *testing.T, f Factory) {
	open := f(t)
	handles := []guard.Store{open(t), open(t)}
	c, now := Chain("a", 2), Base()
	const k, callers, tries = 23, 8, 8
	budgets := []verify.Budget{Calls(c, 0, k), Calls(c, 1, 1000)}
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for g := range callers {
		wg.Go(func() {
			for range tries {
				v, err := handles[g%2].Admit(ctx, Admission(c, now, budgets...))
				if err != nil {
					t.Errorf("admit: %v", err)
					return
				}
				if v.Admitted {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := admitted.Load(); n != k {
		t.Fatalf("admitted %d of %d racing calls, want exactly %d", n, callers*tries, k)
	}
	wantSpent(t, handles[1], c[0], budgets, k, k)
}

// The same DPoP proof presented through two handles at once is admitted
// exactly once.
func testRaceReplay(t *testing.T, f Factory) {
	open := f(t)
	handles := []guard.Store{open(t), open(t)}
	c, now := Chain("a", 1), Base()
	const proofs = 20
	var wg sync.WaitGroup
	var admitted [proofs]atomic.Int32
	for h := range handles {
		wg.Go(func() {
			for p := range proofs {
				a := Admission(c, now)
				a.Replay = Replay(fmt.Sprint("jti-", p), "https://x/", now.Add(time.Minute))
				v, err := handles[h].Admit(ctx, a)
				if err != nil {
					t.Errorf("admit: %v", err)
					return
				}
				if v.Admitted {
					admitted[p].Add(1)
				} else if v.Reason != guard.Replayed {
					t.Errorf("verdict %+v, want admitted or replayed", v)
				}
			}
		})
	}
	wg.Wait()
	for p := range proofs {
		if n := admitted[p].Load(); n != 1 {
			t.Errorf("proof %d admitted %d times through two handles, want once", p, n)
		}
	}
}

// Once Revoke returns on one handle, no handle admits the family.
func testRevokeAcrossHandles(t *testing.T, f Factory) {
	open := f(t)
	a, b := open(t), open(t)
	c, now := Chain("a", 2), Base()
	wantAdmitted(t, b, Admission(c, now))
	if err := a.Revoke(ctx, guard.Revocation{Family: c[0], Blocks: c[:1]}, now); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, b, Admission(c, now), guard.Revoked, 0)
	wantRefused(t, a, Admission(c[:1], now), guard.Revoked, 0)
}
