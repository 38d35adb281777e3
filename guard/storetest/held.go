package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Held (guard.HeldReporter) counts, per budget, the reservations still
// held: not those captured at once, captured, released, of another
// family, or whose hold has ended (up to and including HoldUntil, a
// reservation is held, as Settle decides).
func testHeld(t *testing.T, f Factory) {
	s := f(t)(t)
	hr, ok := s.(guard.HeldReporter)
	if !ok {
		t.Fatalf("%T does not implement guard.HeldReporter", s)
	}
	c, now := Chain("a", 2), Base()
	budgets := []verify.Budget{Calls(c, 0, 10), Total(c, 0, 100, "USD"), Calls(c, 1, 10)}
	hold := func(cost uint64, until time.Duration, bs ...verify.Budget) guard.Admission {
		a := Admission(c, now, bs...)
		a.Cost = Cost(cost, "USD")
		if until > 0 {
			a.HoldUntil = now.Add(until)
		}
		wantAdmitted(t, s, a)
		return a
	}
	held := func(at time.Time, want ...uint64) {
		t.Helper()
		got, err := hr.Held(ctx, c[0], budgets, at)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("held at %v: %v, want %v", at.Sub(now), got, want)
		}
	}
	held(now, 0, 0, 0)
	hold(5, 0, budgets...) // captured at once
	a := hold(7, time.Minute, budgets...)
	hold(11, 2*time.Minute, budgets[:2]...)
	d := hold(13, time.Minute, budgets...)
	other := Chain("b", 1)
	o := Admission(other, now, Calls(other, 0, 5))
	o.HoldUntil = now.Add(time.Minute)
	wantAdmitted(t, s, o)
	wantSpent(t, s, c[0], budgets, 4, 36, 3)
	held(now, 3, 31, 2)
	if err := s.Settle(ctx, c[0], a.Request, guard.Capture, now); err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(ctx, c[0], d.Request, guard.Release, now); err != nil {
		t.Fatal(err)
	}
	held(now, 1, 11, 0)
	held(now.Add(2*time.Minute), 1, 11, 0)
	held(now.Add(2*time.Minute+time.Millisecond), 0, 0, 0)
	wantSpent(t, s, c[0], budgets, 3, 23, 2)
	got, err := hr.Held(ctx, token.BlockID{}, budgets, now)
	if err != nil || fmt.Sprint(got) != "[0 0 0]" {
		t.Fatalf("held in an empty family: %v %v", got, err)
	}
}
