package storetest

import (
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// A budget without room refuses the admission and charges no other
// budget, records no replay key.
func testAllOrNothing(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 2), Base()
	budgets := []verify.Budget{Calls(c, 0, 10), Total(c, 0, 5, "USD"), Calls(c, 1, 0)}
	a := Admission(c, now, budgets...)
	a.Cost, a.Replay = Cost(1, "USD"), Replay("j1", "https://x/", now.Add(time.Minute))
	wantRefused(t, s, a, guard.Exhausted, 2)
	wantSpent(t, s, c[0], budgets, 0, 0, 0)
	// The replay key was not recorded: the same proof is admitted once the
	// budget allows it.
	a.Request, a.Budgets = guard.NewRequestID(), budgets[:2]
	wantAdmitted(t, s, a)
	wantSpent(t, s, c[0], budgets, 1, 1, 0)
}

// A calls budget of n admits exactly n calls, the family's tickets
// sharing it; the first budget without room is named.
func testCallsBoundary(t *testing.T, f Factory) {
	for _, n := range []uint64{0, 1, 3} {
		s := f(t)(t)
		c, now := Chain("a", 2), Base()
		parent := []verify.Budget{Calls(c, 0, n)}
		child := []verify.Budget{Calls(c, 0, n), Calls(c, 1, n+5)}
		for i := uint64(0); i < n; i++ {
			b := parent
			if i%2 == 1 {
				b = child
			}
			wantAdmitted(t, s, Admission(c[:len(b)], now, b...))
		}
		wantRefused(t, s, Admission(c[:1], now, parent...), guard.Exhausted, 0)
		wantRefused(t, s, Admission(c, now, child...), guard.Exhausted, 0)
		wantSpent(t, s, c[0], child, n, n/2)
	}
}

// A total budget admits calls while their costs fit: exactly up to the
// limit, not a micro more.
func testTotalBoundary(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	b := Total(c, 0, 1_000_000, "EUR")
	for _, tc := range []struct {
		cost uint64
		ok   bool
	}{
		{400_000, true}, {400_000, true}, {200_001, false}, {1_000_001, false}, {200_000, true}, {1, false}, {0, true},
	} {
		a := Admission(c, now, b)
		a.Cost = Cost(tc.cost, "EUR")
		if tc.ok {
			wantAdmitted(t, s, a)
		} else {
			wantRefused(t, s, a, guard.Exhausted, 0)
		}
	}
	wantSpent(t, s, c[0], []verify.Budget{b}, 1_000_000)
}

// A total budget refuses a call with no cost or a cost in another
// currency, and budgets in two currencies are counted apart.
func testTotalCurrency(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 2), Base()
	usd, eur := Total(c, 0, 10, "USD"), Total(c, 1, 10, "EUR")
	a := Admission(c, now, usd)
	wantRefused(t, s, a, guard.Exhausted, 0)
	a = Admission(c, now, usd)
	a.Cost = Cost(1, "EUR")
	wantRefused(t, s, a, guard.Exhausted, 0)
	a = Admission(c, now, usd, eur)
	a.Cost = Cost(1, "USD")
	wantRefused(t, s, a, guard.Exhausted, 1)
	a = Admission(c[:1], now, usd)
	a.Cost = Cost(4, "USD")
	wantAdmitted(t, s, a)
	usdOfBlock1 := Total(c, 1, 10, "USD")
	wantSpent(t, s, c[0], []verify.Budget{usd, eur, usdOfBlock1}, 4, 0, 0)
}

// Limits and costs up to 2^53 are counted exactly, in every store.
func testLargestCount(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	b := Total(c, 0, guard.MaxCount, "USD")
	a := Admission(c, now, b, Calls(c, 0, guard.MaxCount))
	a.Cost = Cost(guard.MaxCount-1, "USD")
	wantAdmitted(t, s, a)
	a.Request, a.Cost = guard.NewRequestID(), Cost(2, "USD")
	wantRefused(t, s, a, guard.Exhausted, 0)
	a.Request, a.Cost = guard.NewRequestID(), Cost(1, "USD")
	wantAdmitted(t, s, a)
	u, err := s.Spent(ctx, c[0], a.Budgets)
	if err != nil || u[0].Spent != guard.MaxCount || u[0].Remaining != 0 || u[1].Spent != 2 || u[1].Remaining != guard.MaxCount-2 {
		t.Fatalf("spent %+v, %v", u, err)
	}
}

// Malformed admissions are refused with ErrInvalid and change nothing.
func testInvalid(t *testing.T, f Factory) {
	s := f(t)(t)
	c, other, now := Chain("a", 2), Chain("b", 2), Base()
	ok := Calls(c, 0, 5)
	for name, edit := range map[string]func(*guard.Admission){
		"limit above 2^53": func(a *guard.Admission) { a.Budgets = []verify.Budget{Calls(c, 0, guard.MaxCount+1)} },
		"total above 2^53": func(a *guard.Admission) { a.Budgets = []verify.Budget{Total(c, 0, guard.MaxCount+1, "USD")} },
		"cost above 2^53":  func(a *guard.Admission) { a.Cost = Cost(guard.MaxCount+1, "USD") },
		"zero request":     func(a *guard.Admission) { a.Request = guard.RequestID{} },
		"no blocks":        func(a *guard.Admission) { a.Blocks, a.Budgets = nil, nil },
		"zero time":        func(a *guard.Admission) { a.Now = time.Time{} },
		"foreign key":      func(a *guard.Admission) { a.Budgets = []verify.Budget{Calls(other, 1, 5)} },
		"block out of range": func(a *guard.Admission) {
			a.Blocks = c[:1]
			a.Budgets = []verify.Budget{Calls(c, 1, 5)}
		},
		"same counter twice": func(a *guard.Admission) { a.Budgets = []verify.Budget{ok, Calls(c, 0, 7)} },
		"bad currency":       func(a *guard.Admission) { a.Budgets = []verify.Budget{Total(c, 0, 5, "usd")} },
		"kind not a budget":  func(a *guard.Admission) { a.Budgets = []verify.Budget{{Block: 0, Kind: 1, Key: c[0]}} },
		"replay without jti": func(a *guard.Admission) { a.Replay = Replay("", "https://x/", now) },
	} {
		a := Admission(c, now, ok)
		edit(&a)
		if _, err := s.Admit(ctx, a); !isInvalid(err) {
			t.Errorf("%s: error %v, want ErrInvalid", name, err)
		}
	}
	wantSpent(t, s, c[0], []verify.Budget{ok}, 0)
	if _, err := s.Spent(ctx, c[0], []verify.Budget{ok, ok}); !isInvalid(err) {
		t.Errorf("spent of one counter twice: error %v, want ErrInvalid", err)
	}
	if err := s.Revoke(ctx, guard.Revocation{Family: c[0]}, now); !isInvalid(err) {
		t.Errorf("revoke of no blocks: error %v, want ErrInvalid", err)
	}
}

// A proof's replay key is refused while live (up to and including its
// Until) and admitted again after it; another URI is another key.
func testReplay(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	until := now.Add(5 * time.Second)
	a := Admission(c, now)
	a.Replay = Replay("jti-1", "https://x/a", until)
	wantAdmitted(t, s, a)
	for _, at := range []time.Time{now, until} {
		a.Request, a.Now = guard.NewRequestID(), at
		wantRefused(t, s, a, guard.Replayed, -1)
	}
	b := Admission(c, now)
	b.Replay = Replay("jti-1", "https://x/b", until)
	wantAdmitted(t, s, b)
	a.Request, a.Now = guard.NewRequestID(), until.Add(time.Millisecond)
	a.Replay = Replay("jti-1", "https://x/a", until.Add(time.Minute))
	wantAdmitted(t, s, a)
	a.Request, a.Now = guard.NewRequestID(), until.Add(2*time.Millisecond)
	wantRefused(t, s, a, guard.Replayed, -1)
}

// Revoking any block of a chain refuses it (the lowest revoked block is
// named) and charges nothing; other families are not touched.
func testRevocation(t *testing.T, f Factory) {
	s := f(t)(t)
	c, other, now := Chain("a", 3), Chain("b", 3), Base()
	b := Calls(c, 0, 10)
	wantAdmitted(t, s, Admission(c, now, b))
	if i, err := s.Revoked(ctx, c[0], c); err != nil || i != -1 {
		t.Fatalf("revoked: %d, %v; want -1", i, err)
	}
	if err := s.Revoke(ctx, guard.Revocation{Family: c[0], Blocks: c[2:]}, now); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, s, Admission(c, now, b), guard.Revoked, 2)
	wantAdmitted(t, s, Admission(c[:2], now, b))
	if err := s.Revoke(ctx, guard.Revocation{Family: c[0], Blocks: c[1:2], Expires: now.Add(time.Hour)}, now); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, s, Admission(c, now, b), guard.Revoked, 1)
	if i, err := s.Revoked(ctx, c[0], c); err != nil || i != 1 {
		t.Fatalf("revoked: %d, %v; want 1", i, err)
	}
	wantSpent(t, s, c[0], []verify.Budget{b}, 2)
	wantAdmitted(t, s, Admission(other, now, Calls(other, 0, 1)))
	if i, err := s.Revoked(ctx, other[0], other); err != nil || i != -1 {
		t.Fatalf("other family revoked: %d, %v", i, err)
	}
}
