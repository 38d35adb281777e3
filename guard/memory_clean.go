package guard

import "time"

// clean drops expired entries, looking at no more than 4*CleanBatch
// entries of each map and dropping no more than CleanBatch of each, so no
// admission pays for more than a bounded amount of it.
func (s *MemoryStore) clean(now time.Time) {
	sweep(s.replay, func(until time.Time) bool { return now.After(until) })
	sweep(s.revoked, func(e time.Time) bool { return !e.IsZero() && now.After(e) })
	sweep(s.counters, func(n *memCount) bool { return !n.expires.IsZero() && now.After(n.expires) })
	sweep(s.requests, func(r memRequest) bool { return now.After(fromNanos(r.keep)) })
	// A hold that ended counts as captured: nothing is given back.
	sweep(s.held, func(h memHeld) bool { return now.After(fromNanos(h.hold)) })
	s.sweepOps(now)
}

func sweep[K comparable, V any](m map[K]V, expired func(V) bool) {
	seen, dropped := 0, 0
	for k, v := range m {
		if seen++; seen > 4*CleanBatch || dropped == CleanBatch {
			return
		}
		if expired(v) {
			delete(m, k)
			dropped++
		}
	}
}

// sweepOps drops expired operation keys, looking at no more than
// 4*CleanBatch keys and dropping no more than CleanBatch, and a family
// left without keys.
func (s *MemoryStore) sweepOps(now time.Time) {
	seen, dropped := 0, 0
	for family, keys := range s.ops {
		for k, o := range keys {
			if seen++; seen > 4*CleanBatch || dropped == CleanBatch {
				return
			}
			if OperationExpired(o, now) {
				delete(keys, k)
				dropped++
			}
		}
		if len(keys) == 0 {
			delete(s.ops, family)
		}
	}
}
