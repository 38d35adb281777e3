package mcp

import (
	"sync"
	"time"
)

// gate orders the tools/call requests of one session against the calls the
// server is still running, so that the guard never checks a path while a
// call that may change what the path leads to is under way.
//
// An agent can race its own calls: an allowed move_file that brings a link
// under an allowed name, then at once a read through that name. Checked
// before the move ran, the read passes; run after it, it leaks. So a call
// that may change the filesystem (any tool the profile does not know to be
// read-only) is checked and forwarded only when no call is in flight, and
// while it is in flight no other call is checked: read-only calls run
// together, a changing call runs alone, as readers and a writer do. A call
// is in flight from its forwarding until the server's answer to its id.
type gate struct {
	mu      sync.Mutex
	reads   map[idKey]int // forwarded read-only calls awaiting an answer
	writes  map[idKey]int // forwarded calls that may change the filesystem
	changed chan struct{} // closed and replaced whenever a call is answered
}

func newGate() *gate {
	return &gate{reads: map[idKey]int{}, writes: map[idKey]int{}, changed: make(chan struct{})}
}

// wait blocks until a call of the given kind may be checked, and reports
// false when timeout passed or done was closed first. Once hurry is closed
// (the agent's input ended, so the session is ending) it waits at most
// ShutdownGrace more.
func (g *gate) wait(readOnly bool, timeout time.Duration, done, hurry <-chan struct{}) bool {
	var expired <-chan time.Time
	for {
		g.mu.Lock()
		free := len(g.writes) == 0 && (readOnly || len(g.reads) == 0)
		changed := g.changed
		g.mu.Unlock()
		if free {
			return true
		}
		if expired == nil {
			t := time.NewTimer(timeout)
			defer t.Stop()
			expired = t.C
		}
		select {
		case <-changed:
		case <-expired:
			return false
		case <-done:
			return false
		case <-hurry:
			hurry = nil
			if timeout > ShutdownGrace {
				expired = time.After(ShutdownGrace)
			}
		}
	}
}

// enter records a forwarded call as in flight.
func (g *gate) enter(k idKey, readOnly bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if readOnly {
		g.reads[k]++
	} else {
		g.writes[k]++
	}
}

// answered records the server's answer to id k: one call with that id is
// no longer in flight. It reports whether k was in flight.
func (g *gate) answered(k idKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := g.writes
	if m[k] == 0 {
		m = g.reads
	}
	if m[k] == 0 {
		return false
	}
	if m[k]--; m[k] == 0 {
		delete(m, k)
	}
	close(g.changed)
	g.changed = make(chan struct{})
	return true
}
