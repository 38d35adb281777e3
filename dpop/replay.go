package dpop

import (
	"errors"
	"sync"
	"time"
)

// ReplayKey identifies a proof for replay detection: its jti scoped to its
// normalised htu. It is comparable and usable as a map key. Replay is keyed
// on the jti, never on the proof bytes, because ECDSA signatures are
// malleable: (r, s) and (r, n-s) both verify.
type ReplayKey struct{ JTI, URI string }

// ReplayCache remembers proofs until they can no longer pass [Verify].
type ReplayCache interface {
	// Remember records key until the given time; it returns false (and
	// records nothing) if key is already remembered and not yet expired at
	// now. An entry is live while now <= until.
	Remember(key ReplayKey, until, now time.Time) bool
}

// Remember records p in cache at time now. It returns an *[Error] with [Check]
// [CheckReplay] (matching [ErrInvalid]) if the cache refuses: the jti was
// already used for this htu, or the cache is full and fails closed.
func (p *Proof) Remember(cache ReplayCache, now time.Time) error {
	if cache == nil {
		return errors.New("dpop: nil replay cache")
	}
	if !cache.Remember(p.ReplayKey, p.RememberUntil, now) {
		return refuse(CheckReplay, "jti already used for this htu, or replay cache full")
	}
	return nil
}

// MemoryReplayCache is an in-process [ReplayCache] holding at most max
// entries. When full it first drops expired entries; if it is still full it
// refuses new entries (Remember returns false) rather than forget live ones:
// it fails closed, so a flood of proofs makes legitimate proofs fail, never
// lets a replay through. It is safe for concurrent use.
type MemoryReplayCache struct {
	mu   sync.Mutex
	max  int
	m    map[ReplayKey]time.Time
	next time.Time // no entry expires before next; zero when unknown
}

// NewMemoryReplayCache returns an empty cache holding at most max entries
// (DefaultReplayCacheSize if max <= 0).
func NewMemoryReplayCache(max int) *MemoryReplayCache {
	if max <= 0 {
		max = DefaultReplayCacheSize
	}
	return &MemoryReplayCache{max: max, m: make(map[ReplayKey]time.Time)}
}

// Remember implements [ReplayCache].
func (c *MemoryReplayCache) Remember(key ReplayKey, until, now time.Time) bool {
	if now.After(until) {
		// Already expired: Verify would refuse such a proof anyway; record
		// nothing and accept, as documented for ReplayCache.
		return !c.live(key, now)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[key]; ok {
		if !now.After(old) {
			return false
		}
		c.m[key] = until
		c.lowerNext(until)
		return true
	}
	if len(c.m) >= c.max {
		c.sweep(now)
		if len(c.m) >= c.max {
			return false
		}
	}
	c.m[key] = until
	c.lowerNext(until)
	return true
}

func (c *MemoryReplayCache) live(key ReplayKey, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[key]
	return ok && !now.After(old)
}

func (c *MemoryReplayCache) lowerNext(until time.Time) {
	if c.next.IsZero() || until.Before(c.next) {
		c.next = until
	}
}

// sweep drops expired entries. It does nothing, in O(1), while no entry
// can have expired, so a full cache of live entries costs little per call.
func (c *MemoryReplayCache) sweep(now time.Time) {
	if !c.next.IsZero() && !now.After(c.next) {
		return
	}
	c.next = time.Time{}
	for k, until := range c.m {
		if now.After(until) {
			delete(c.m, k)
		} else {
			c.lowerNext(until)
		}
	}
}

// Len returns the number of entries held, expired or not.
func (c *MemoryReplayCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
