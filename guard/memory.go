package guard

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// MemoryStore is the in-process [Store]: its state lives as long as it does
// and is shared only by the goroutines holding it. It is for tests, for
// one-process tools, and as the reference the other stores are tested
// against.
type MemoryStore struct {
	mu       sync.Mutex
	closed   bool
	admits   int
	revoked  map[memBlock]time.Time // until when it is kept; zero: for ever
	replay   map[memReplay]time.Time
	counters map[memCounter]*memCount
	// requests hold no pointers, so that the garbage collector never
	// scans them: a busy store keeps every request's verdict for
	// RequestRetention. The charges of those still held are in held.
	requests map[memRequestKey]memRequest
	held     map[memRequestKey]memHeld
	ops      map[token.BlockID]map[string]*Operation // by family, then key
}

type memBlock struct{ family, block token.BlockID }

type memReplay struct {
	family token.BlockID
	digest [32]byte
}

type memCounter struct {
	family  token.BlockID
	counter Counter
}

type memCount struct {
	spent   uint64
	expires time.Time // zero: for ever
}

type memRequestKey struct {
	family token.BlockID
	id     RequestID
}

type memRequest struct {
	digest     [32]byte
	verdict    Verdict
	state      HoldState
	hold, keep int64 // see nanos
}

// memHeld is what a request in state Held may give back.
type memHeld struct {
	charges []Charge
	hold    int64
}

// nanos is t as the request table keeps it: Unix nanoseconds, 0 for the
// zero time (a store's times are within a few hours of now, far inside
// what UnixNano represents).
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{
		revoked:  map[memBlock]time.Time{},
		replay:   map[memReplay]time.Time{},
		counters: map[memCounter]*memCount{},
		requests: map[memRequestKey]memRequest{},
		held:     map[memRequestKey]memHeld{},
		ops:      map[token.BlockID]map[string]*Operation{},
	}
}

var errClosed = errors.New("store is closed")

// lock takes the store's lock for op, or fails when ctx is done or the
// store is closed.
func (s *MemoryStore) lock(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return Failed("guard", op, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return Failed("guard", op, errClosed)
	}
	return nil
}

// Admit implements [Store].
func (s *MemoryStore) Admit(ctx context.Context, a Admission) (Verdict, error) {
	p, err := Prepare(&a)
	if err != nil {
		return Verdict{}, err
	}
	if err := s.lock(ctx, "admit"); err != nil {
		return Verdict{}, err
	}
	defer s.mu.Unlock()
	rk := memRequestKey{p.Family, a.Request}
	if r, ok := s.requests[rk]; ok && !a.Now.After(fromNanos(r.keep)) {
		if r.digest != p.Digest {
			return Verdict{}, ErrConflict
		}
		v := r.verdict
		v.Repeated = true
		return v, nil
	}
	v := s.decide(&a, &p)
	r := memRequest{digest: p.Digest, verdict: v, keep: nanos(p.Keep)}
	delete(s.held, rk) // an expired request's, whose id came again
	if v.Admitted {
		r.state, r.hold = Captured, nanos(a.HoldUntil)
		if p.Hold {
			r.state = Held
			s.held[rk] = memHeld{charges: p.Charges, hold: r.hold}
		}
		if a.Replay != nil && !a.Now.After(a.Replay.Until) {
			s.replay[memReplay{p.Family, p.Replay}] = a.Replay.Until
		}
		for _, c := range p.Charges {
			s.charge(memCounter{p.Family, c.Counter}, c.Amount, a.Expires)
		}
	}
	s.requests[rk] = r
	if s.admits++; s.admits%CleanEvery == 0 {
		s.clean(a.Now)
	}
	return v, nil
}

func (s *MemoryStore) decide(a *Admission, p *Plan) Verdict {
	for i, id := range p.Revocable {
		if _, ok := s.revoked[memBlock{p.Family, id}]; ok {
			return Verdict{Reason: Revoked, Index: i}
		}
	}
	if a.Replay != nil {
		if until, ok := s.replay[memReplay{p.Family, p.Replay}]; ok && !a.Now.After(until) {
			return Verdict{Reason: Replayed, Index: -1}
		}
	}
	for i, c := range p.Charges {
		var spent uint64
		if n := s.counters[memCounter{p.Family, c.Counter}]; n != nil {
			spent = n.spent
		}
		if !c.Room(spent) {
			return Verdict{Reason: Exhausted, Index: i}
		}
	}
	return Verdict{Admitted: true, Index: -1}
}

func (s *MemoryStore) charge(k memCounter, amount uint64, expires time.Time) {
	n := s.counters[k]
	if n == nil {
		s.counters[k] = &memCount{spent: amount, expires: expires}
		return
	}
	n.spent += amount
	n.expires = later(n.expires, expires)
}

// later returns the later of two expiry times, where zero is for ever.
func later(a, b time.Time) time.Time {
	if a.IsZero() || b.IsZero() {
		return time.Time{}
	}
	if b.After(a) {
		return b
	}
	return a
}

// Settle implements [Store].
func (s *MemoryStore) Settle(ctx context.Context, family token.BlockID, id RequestID, o Outcome, now time.Time) error {
	if err := ValidateOutcome(o); err != nil {
		return err
	}
	if err := s.lock(ctx, "settle"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	k := memRequestKey{family, id}
	r, ok := s.requests[k]
	if !ok || !r.verdict.Admitted || now.After(fromNanos(r.keep)) {
		return ErrNoReservation
	}
	next, giveBack, err := r.state.Settle(o, now, fromNanos(r.hold))
	r.state = next
	s.requests[k] = r
	h := s.held[k]
	if next != Held {
		delete(s.held, k)
	}
	if giveBack {
		for _, c := range h.charges {
			if n := s.counters[memCounter{family, c.Counter}]; n != nil {
				n.spent -= min(n.spent, c.Amount)
			}
		}
	}
	return err
}

// Revoke implements [Store].
func (s *MemoryStore) Revoke(ctx context.Context, r Revocation, now time.Time) error {
	if err := ValidateBlocks(r.Blocks); err != nil {
		return err
	}
	if err := s.lock(ctx, "revoke"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	for _, id := range r.Blocks {
		k := memBlock{r.Family, id}
		if old, ok := s.revoked[k]; ok {
			s.revoked[k] = later(old, r.Expires)
		} else {
			s.revoked[k] = r.Expires
		}
	}
	return nil
}

// Revoked implements [Store].
func (s *MemoryStore) Revoked(ctx context.Context, family token.BlockID, blocks []token.BlockID) (int, error) {
	if err := ValidateBlocks(blocks); err != nil {
		return -1, err
	}
	if err := s.lock(ctx, "revoked"); err != nil {
		return -1, err
	}
	defer s.mu.Unlock()
	for i, id := range blocks {
		if _, ok := s.revoked[memBlock{family, id}]; ok {
			return i, nil
		}
	}
	return -1, nil
}

// Spent implements [Store].
func (s *MemoryStore) Spent(ctx context.Context, family token.BlockID, budgets []verify.Budget) ([]Usage, error) {
	if err := ValidateBudgets(budgets); err != nil {
		return nil, err
	}
	if err := s.lock(ctx, "spent"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	u := make([]Usage, len(budgets))
	for i, b := range budgets {
		var spent uint64
		if n := s.counters[memCounter{family, CounterOf(b)}]; n != nil {
			spent = n.spent
		}
		u[i] = NewUsage(b, spent)
	}
	return u, nil
}

// NewUsage returns the usage of budget b whose counter holds spent.
func NewUsage(b verify.Budget, spent uint64) Usage {
	c := CounterOf(b)
	u := Usage{Kind: b.Kind, Currency: c.Currency, Limit: Limit(b), Spent: spent}
	if spent < u.Limit {
		u.Remaining = u.Limit - spent
	}
	return u
}

// Close implements [Store]; later calls fail with [ErrStore].
func (s *MemoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
