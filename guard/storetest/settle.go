package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// A retry with the same request id returns the first verdict, marked
// Repeated, and charges nothing again, whether that verdict admitted or
// refused; after RequestRetention it is a new admission.
func testRetry(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	b := Calls(c, 0, 2)
	a := Admission(c, now, b)
	a.HoldUntil = now.Add(time.Minute)
	a.Replay = Replay("j", "https://x/", now.Add(time.Minute))
	wantAdmitted(t, s, a)
	a.Now = now.Add(time.Second)
	if v := admit(t, s, a); !v.Admitted || !v.Repeated {
		t.Fatalf("retry: %+v, want the first verdict, repeated", v)
	}
	wantSpent(t, s, c[0], []verify.Budget{b}, 1)

	wantAdmitted(t, s, Admission(c, now, b))
	full := Admission(c, now, b)
	wantRefused(t, s, full, guard.Exhausted, 0)
	if err := s.Settle(ctx, c[0], a.Request, guard.Release, now); err != nil {
		t.Fatal(err)
	}
	if v := admit(t, s, full); v.Admitted || v.Reason != guard.Exhausted || !v.Repeated {
		t.Fatalf("retry of a refusal after room was freed: %+v, want the first refusal", v)
	}
	wantSpent(t, s, c[0], []verify.Budget{b}, 1)

	full.Now = now.Add(guard.RequestRetention + time.Second)
	if v := admit(t, s, full); !v.Admitted || v.Repeated {
		t.Fatalf("retry after the retention: %+v, want a new admission", v)
	}
	wantSpent(t, s, c[0], []verify.Budget{b}, 2)
}

// A call whose Admit failed (here: its context was cancelled) and that is
// retried with the same request id is charged once, whether or not the
// failed attempt reached the store.
func testRetryAfterFailure(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	b := Calls(c, 0, 5)
	a := Admission(c, now, b)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Admit(cancelled, a); !errors.Is(err, guard.ErrStore) {
		t.Fatalf("admit with a cancelled context: %v, want ErrStore", err)
	}
	wantAdmitted(t, s, a)
	if v := admit(t, s, a); !v.Admitted || !v.Repeated {
		t.Fatalf("second retry: %+v", v)
	}
	wantSpent(t, s, c[0], []verify.Budget{b}, 1)
}

// A request id reused for other content is refused with ErrConflict.
func testConflict(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 2), Base()
	a := Admission(c, now, Calls(c, 0, 5))
	wantAdmitted(t, s, a)
	for name, edit := range map[string]func(*guard.Admission){
		"budget":  func(b *guard.Admission) { b.Budgets = []verify.Budget{Calls(c, 0, 6)} },
		"blocks":  func(b *guard.Admission) { b.Blocks = c[:1] },
		"cost":    func(b *guard.Admission) { b.Cost = Cost(1, "USD") },
		"replay":  func(b *guard.Admission) { b.Replay = Replay("j", "https://x/", now) },
		"no more": func(b *guard.Admission) { b.Budgets = nil },
	} {
		b := a
		edit(&b)
		if _, err := s.Admit(ctx, b); !errors.Is(err, guard.ErrConflict) {
			t.Errorf("%s: error %v, want ErrConflict", name, err)
		}
	}
	wantSpent(t, s, c[0], a.Budgets, 1)
}

// Release gives a held reservation back to every budget, once.
func testRelease(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 2), Base()
	budgets := []verify.Budget{Calls(c, 0, 1), Total(c, 0, 10, "USD"), Calls(c, 1, 1)}
	a := Admission(c, now, budgets...)
	a.Cost, a.HoldUntil = Cost(7, "USD"), now.Add(time.Second)
	wantAdmitted(t, s, a)
	wantSpent(t, s, c[0], budgets, 1, 7, 1)
	wantRefused(t, s, Admission(c, now, budgets[0]), guard.Exhausted, 0)
	for range 2 {
		if err := s.Settle(ctx, c[0], a.Request, guard.Release, a.HoldUntil); err != nil {
			t.Fatalf("release: %v", err)
		}
		wantSpent(t, s, c[0], budgets, 0, 0, 0)
	}
	wantErr(t, s.Settle(ctx, c[0], a.Request, guard.Capture, now), guard.ErrSettled)
	b := Admission(c, now, budgets...)
	b.Cost = Cost(10, "USD")
	wantAdmitted(t, s, b)
	wantSpent(t, s, c[0], budgets, 1, 10, 1)
}

// After HoldUntil a reservation counts as captured: Release is refused
// and the charge stays. A reservation with no hold is captured at once.
func testReleaseAfterHold(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	b := Calls(c, 0, 5)
	a := Admission(c, now, b)
	a.HoldUntil = now.Add(time.Second)
	wantAdmitted(t, s, a)
	wantErr(t, s.Settle(ctx, c[0], a.Request, guard.Release, a.HoldUntil.Add(time.Millisecond)), guard.ErrSettled)
	wantErr(t, s.Settle(ctx, c[0], a.Request, guard.Release, now), guard.ErrSettled)
	if err := s.Settle(ctx, c[0], a.Request, guard.Capture, now); err != nil {
		t.Fatalf("capture after the hold: %v", err)
	}
	noHold := Admission(c, now, b)
	wantAdmitted(t, s, noHold)
	wantErr(t, s.Settle(ctx, c[0], noHold.Request, guard.Release, now), guard.ErrSettled)
	wantSpent(t, s, c[0], []verify.Budget{b}, 2)
}

// Capture is idempotent, keeps the charge, and forbids a later release.
func testCapture(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 1), Base()
	b := Calls(c, 0, 5)
	a := Admission(c, now, b)
	a.HoldUntil = now.Add(time.Minute)
	wantAdmitted(t, s, a)
	for range 3 {
		if err := s.Settle(ctx, c[0], a.Request, guard.Capture, now); err != nil {
			t.Fatalf("capture: %v", err)
		}
	}
	wantErr(t, s.Settle(ctx, c[0], a.Request, guard.Release, now), guard.ErrSettled)
	wantSpent(t, s, c[0], []verify.Budget{b}, 1)
}

// Settle of a request that holds no reservation in the family fails with
// ErrNoReservation; an unknown outcome with ErrInvalid.
func testSettleUnknown(t *testing.T, f Factory) {
	s := f(t)(t)
	c, other, now := Chain("a", 1), Chain("b", 1), Base()
	refused := Admission(c, now, Calls(c, 0, 0))
	wantRefused(t, s, refused, guard.Exhausted, 0)
	ok := Admission(c, now, Calls(c, 0, 5))
	ok.HoldUntil = now.Add(time.Minute)
	wantAdmitted(t, s, ok)
	for name, err := range map[string]error{
		"never admitted": s.Settle(ctx, c[0], guard.NewRequestID(), guard.Capture, now),
		"refused":        s.Settle(ctx, c[0], refused.Request, guard.Release, now),
		"other family":   s.Settle(ctx, other[0], ok.Request, guard.Release, now),
		"forgotten":      s.Settle(ctx, c[0], ok.Request, guard.Release, ok.HoldUntil.Add(guard.RequestRetention+time.Second)),
	} {
		if !errors.Is(err, guard.ErrNoReservation) {
			t.Errorf("%s: error %v, want ErrNoReservation", name, err)
		}
	}
	if err := s.Settle(ctx, c[0], ok.Request, 0, now); !isInvalid(err) {
		t.Errorf("unknown outcome: error %v, want ErrInvalid", err)
	}
	wantSpent(t, s, c[0], ok.Budgets, 1)
}

// Spent reports limit, spent (held reservations included) and remaining.
func testSpent(t *testing.T, f Factory) {
	s := f(t)(t)
	c, now := Chain("a", 2), Base()
	budgets := []verify.Budget{Calls(c, 0, 3), Total(c, 1, 2_500_000, "JPY")}
	a := Admission(c, now, budgets...)
	a.Cost, a.HoldUntil = Cost(1_000_000, "JPY"), now.Add(time.Minute)
	wantAdmitted(t, s, a)
	u, err := s.Spent(ctx, c[0], budgets)
	if err != nil {
		t.Fatal(err)
	}
	want := []guard.Usage{
		{Kind: budgets[0].Kind, Limit: 3, Spent: 1, Remaining: 2},
		{Kind: budgets[1].Kind, Currency: "JPY", Limit: 2_500_000, Spent: 1_000_000, Remaining: 1_500_000},
	}
	if len(u) != 2 || u[0] != want[0] || u[1] != want[1] {
		t.Fatalf("usage %+v, want %+v", u, want)
	}
	u, err = s.Spent(ctx, c[0], nil)
	if err != nil || len(u) != 0 {
		t.Fatalf("usage of no budgets: %v, %v", u, err)
	}
}

func isInvalid(err error) bool { return errors.Is(err, guard.ErrInvalid) }
