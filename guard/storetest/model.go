package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
	"pgregory.net/rapid"
)

// RunModel checks the stores f makes against a model of the contract:
// random sequences of admissions (new, retried, conflicting), settles,
// revocations and clock steps over two families, comparing every verdict,
// every error class and, after every step, every budget's spend.
func RunModel(t *testing.T, f Factory) {
	rapid.Check(t, func(rt *rapid.T) {
		m := newModel(rt)
		m.store = f(t)(t)
		rt.Repeat(map[string]func(*rapid.T){
			"admit":  m.admit,
			"retry":  m.retry,
			"settle": m.settle,
			"revoke": m.revoke,
			"tick":   m.tick,
			"":       m.checkSpent,
		})
	})
}

type modelRequest struct {
	a       guard.Admission
	verdict guard.Verdict
	state   guard.HoldState
	keep    time.Time
}

type model struct {
	store    guard.Store
	now      time.Time
	chains   [2][]token.BlockID
	budgets  [2][]verify.Budget
	spent    map[guard.Counter]uint64
	replay   map[string]time.Time // family, jti, uri
	revoked  map[token.BlockID]bool
	requests map[requestKey]*modelRequest
	ids      []requestKey
	next     uint64 // the last request id drawn
}

type requestKey struct {
	family token.BlockID
	id     guard.RequestID
}

func newModel(rt *rapid.T) *model {
	m := &model{now: Base(), spent: map[guard.Counter]uint64{}, replay: map[string]time.Time{},
		revoked: map[token.BlockID]bool{}, requests: map[requestKey]*modelRequest{}}
	for f := range m.chains {
		c := Chain(fmt.Sprint("model ", f), 3)
		m.chains[f] = c
		lim := func(name string, max uint64) uint64 { return rapid.Uint64Range(0, max).Draw(rt, name) }
		m.budgets[f] = []verify.Budget{Calls(c, 0, lim("calls0", 6)), Total(c, 0, lim("usd0", 12), "USD"),
			Calls(c, 1, lim("calls1", 5)), Total(c, 2, lim("eur2", 12), "EUR")}
	}
	return m
}

// draw returns a random admission of the model's families.
func (m *model) draw(rt *rapid.T) guard.Admission {
	f := rapid.IntRange(0, 1).Draw(rt, "family")
	depth := rapid.IntRange(1, 3).Draw(rt, "depth")
	a := Admission(m.chains[f][:depth], m.now)
	a.Expires = time.Time{} // counters are kept for ever: the model does not forget them
	m.next++
	a.Request = guard.RequestID{15: byte(m.next), 14: byte(m.next >> 8), 13: byte(m.next >> 16)}
	for _, b := range m.budgets[f] {
		if b.Block < depth {
			a.Budgets = append(a.Budgets, b)
		}
	}
	if cur := rapid.SampledFrom([]string{"", "USD", "EUR"}).Draw(rt, "currency"); cur != "" {
		a.Cost = Cost(rapid.Uint64Range(0, 4).Draw(rt, "cost"), cur)
	}
	if jti := rapid.SampledFrom([]string{"", "a", "b"}).Draw(rt, "jti"); jti != "" {
		a.Replay = Replay(jti, "https://x/", m.now.Add(ms(rapid.IntRange(0, 3000).Draw(rt, "replayFor"))))
	}
	if rapid.Bool().Draw(rt, "hold") {
		a.HoldUntil = m.now.Add(ms(rapid.IntRange(0, 3000).Draw(rt, "holdFor")))
	}
	return a
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func (m *model) admit(rt *rapid.T) {
	a := m.draw(rt)
	if len(m.ids) > 0 && rapid.IntRange(0, 4).Draw(rt, "reuse") == 0 {
		a.Request = rapid.SampledFrom(m.ids).Draw(rt, "id").id
	}
	m.check(rt, a)
}

func (m *model) retry(rt *rapid.T) {
	if len(m.ids) == 0 {
		rt.Skip("nothing to retry")
	}
	a := m.requests[rapid.SampledFrom(m.ids).Draw(rt, "id")].a
	a.Now = m.now
	m.check(rt, a)
}

// check admits a in the store and in the model and compares.
func (m *model) check(rt *rapid.T, a guard.Admission) {
	got, err := m.store.Admit(ctx, a)
	k := requestKey{a.Blocks[0], a.Request}
	r := m.requests[k]
	if r != nil && !m.now.After(r.keep) {
		if !sameContent(&r.a, &a) {
			if !errors.Is(err, guard.ErrConflict) {
				rt.Fatalf("reused id: %+v, %v; want ErrConflict", got, err)
			}
			return
		}
		want := r.verdict
		want.Repeated = true
		if err != nil || got != want {
			rt.Fatalf("retry: %+v, %v; want %+v", got, err, want)
		}
		return
	}
	want := m.decide(&a)
	if err != nil || got != want {
		rt.Fatalf("admit: %+v, %v; want %+v", got, err, want)
	}
	p, _ := guard.Prepare(&a)
	nr := &modelRequest{a: a, verdict: want, keep: p.Keep, state: guard.Captured}
	if want.Admitted {
		if p.Hold {
			nr.state = guard.Held
		}
		if a.Replay != nil && !m.now.After(a.Replay.Until) {
			m.replay[replayName(&a)] = a.Replay.Until
		}
		for _, c := range p.Charges {
			m.spent[c.Counter] += c.Amount
		}
	}
	if r == nil {
		m.ids = append(m.ids, k)
	}
	m.requests[k] = nr
}

func (m *model) decide(a *guard.Admission) guard.Verdict {
	for i, id := range append(a.Blocks[:len(a.Blocks):len(a.Blocks)], a.Discharges...) {
		if m.revoked[id] {
			return guard.Verdict{Reason: guard.Revoked, Index: i}
		}
	}
	if a.Replay != nil {
		if until, ok := m.replay[replayName(a)]; ok && !m.now.After(until) {
			return guard.Verdict{Reason: guard.Replayed, Index: -1}
		}
	}
	for i, b := range a.Budgets {
		amount := uint64(1)
		if b.Kind == caveat.Total {
			if a.Cost == nil || a.Cost.Currency != b.Total.Currency {
				return guard.Verdict{Reason: guard.Exhausted, Index: i}
			}
			amount = a.Cost.Micros
		}
		if m.spent[guard.CounterOf(b)]+amount > guard.Limit(b) {
			return guard.Verdict{Reason: guard.Exhausted, Index: i}
		}
	}
	return guard.Verdict{Admitted: true, Index: -1}
}

func replayName(a *guard.Admission) string {
	return fmt.Sprintf("%x %q %q", a.Blocks[0], a.Replay.Key.JTI, a.Replay.Key.URI)
}

func sameContent(x, y *guard.Admission) bool {
	same := slices.Equal(x.Blocks, y.Blocks) && slices.Equal(x.Discharges, y.Discharges) && slices.Equal(x.Budgets, y.Budgets) &&
		(x.Replay == nil) == (y.Replay == nil) && (x.Cost == nil) == (y.Cost == nil)
	if same && x.Replay != nil {
		same = x.Replay.Key == y.Replay.Key
	}
	if same && x.Cost != nil {
		same = *x.Cost == *y.Cost
	}
	return same
}

func (m *model) settle(rt *rapid.T) {
	if len(m.ids) == 0 {
		rt.Skip("nothing to settle")
	}
	k := rapid.SampledFrom(m.ids).Draw(rt, "id")
	o := rapid.SampledFrom([]guard.Outcome{guard.Capture, guard.Release}).Draw(rt, "outcome")
	r := m.requests[k]
	err := m.store.Settle(ctx, k.family, k.id, o, m.now)
	if !r.verdict.Admitted || m.now.After(r.keep) {
		if !errors.Is(err, guard.ErrNoReservation) {
			rt.Fatalf("settle of %+v: %v, want ErrNoReservation", r.verdict, err)
		}
		return
	}
	next, giveBack, want := r.state.Settle(o, m.now, r.a.HoldUntil)
	if !errors.Is(err, want) || (want == nil && err != nil) {
		rt.Fatalf("settle %d in state %d: %v, want %v", o, r.state, err, want)
	}
	r.state = next
	if giveBack {
		p, _ := guard.Prepare(&r.a)
		for _, c := range p.Charges {
			m.spent[c.Counter] -= c.Amount
		}
	}
}

func (m *model) revoke(rt *rapid.T) {
	f := rapid.IntRange(0, 1).Draw(rt, "family")
	i := rapid.IntRange(0, 2).Draw(rt, "block")
	c := m.chains[f]
	if err := m.store.Revoke(ctx, guard.Revocation{Family: c[0], Blocks: c[i : i+1]}, m.now); err != nil {
		rt.Fatal(err)
	}
	m.revoked[c[i]] = true
}

func (m *model) tick(rt *rapid.T) {
	if rapid.IntRange(0, 20).Draw(rt, "long") == 0 {
		m.now = m.now.Add(guard.RequestRetention)
	}
	m.now = m.now.Add(ms(rapid.IntRange(0, 2000).Draw(rt, "step")))
}

func (m *model) checkSpent(rt *rapid.T) {
	for f := range m.chains {
		u, err := m.store.Spent(ctx, m.chains[f][0], m.budgets[f])
		if err != nil {
			rt.Fatal(err)
		}
		for i, b := range m.budgets[f] {
			if want := m.spent[guard.CounterOf(b)]; u[i].Spent != want {
				rt.Fatalf("family %d budget %d: spent %d, want %d", f, i, u[i].Spent, want)
			}
		}
	}
}
