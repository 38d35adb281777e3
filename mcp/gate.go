package mcp

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/tickettool/tickettool/guard"
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

// queue hands a parsed tools/call to the call worker, which checks it once
// the gate lets it through; the pump goes on with the next message, so
// answers the server waits for (roots, elicitation) are never held up
// behind a waiting call. Its id counts as pending from now on.
func (s *session) queue(c *pendingCall) error {
	s.mu.Lock()
	err := s.claimableLocked(c.m.key)
	if err == nil && s.queuedBytes+len(c.line) > maxQueuedBytes {
		err = fmt.Errorf("mcp: calls of %d bytes are already waiting for the calls in flight", s.queuedBytes)
	}
	if err == nil {
		s.queued[c.m.key] = c
		s.queuedBytes += len(c.line)
	}
	s.mu.Unlock()
	if err != nil {
		s.p.log.Printf("answered a request from the agent with an error: %v", err)
		return s.agent.line(errorResponse(c.m.id, codeInvalidRequest, err.Error()))
	}
	select {
	case s.calls <- c:
		s.refused.take(c.m.key) // the id is in use again
		return nil
	default:
	}
	s.unqueue(c, nil)
	return s.answer(c.m, errorResponse(c.m.id, codeInternalError,
		fmt.Sprintf("mcp: %d calls are already waiting for the calls in flight", maxQueuedCalls)))
}

// unqueue takes c out of the queued calls; with r set, its id is pending
// with r from then on, in the same step, so that no request with the same
// id can slip in between.
func (s *session) unqueue(c *pendingCall, r *pendingReq) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queued[c.m.key] == c {
		delete(s.queued, c.m.key)
		s.queuedBytes -= len(c.line)
	}
	if r != nil {
		s.pending[c.m.key] = *r
	}
}

// cancelled handles the agent's cancellation of a request and reports
// whether it is dropped instead of forwarded: one whose requestId is not an
// id the agent may use (see agentID), a call the proxy answered or has not
// yet checked (the server never saw it), and a call in flight (the server
// would then run it to its end without answering, and the gate must see
// that answer before it lets another call through; the answer reaches the
// agent, which ignores it, as a sender of a cancellation does). Any other
// pending request's cancellation is forwarded, and its id stays pending
// until an answer to it comes.
func (s *session) cancelled(requestID json.RawMessage) bool {
	k, err := agentID(requestID)
	if err != nil {
		s.p.log.Printf("dropped a cancellation: %v", err)
		return true
	}
	if s.refused.take(k) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.queued[k]; c != nil {
		c.cancelled.Store(true)
		return true
	}
	if r, ok := s.pending[k]; ok && r.call {
		s.p.log.Printf("kept back a cancellation of a call the server is running: the guard waits for its answer")
		return true
	}
	// Any other pending request stays pending: the server may have
	// answered it already, and that answer, still on its way, must never be
	// taken for the answer to a later request reusing the id (a call whose
	// budget an error answer would give back). So the id is not free again
	// until an answer comes, if ever.
	return false
}

// runCalls checks and forwards the queued calls in the order they came,
// each once the gate lets it through, until the session ends or the end
// of the agent's input (nil) comes through the queue; then it calls
// agentEnded.
func (s *session) runCalls(agentEnded func()) {
	for {
		select {
		case <-s.done:
			return
		case c := <-s.calls:
			if c == nil {
				agentEnded()
				return
			}
			if err := s.runCall(c); err != nil {
				select {
				case s.failed <- err:
				default:
				}
				return
			}
		}
	}
}

func (s *session) runCall(c *pendingCall) error {
	ready := s.gate.wait(c.readOnly(), s.p.cfg.GateTimeout, s.done, s.ended)
	switch {
	case c.cancelled.Load():
		s.unqueue(c, nil)
		return nil
	case !ready:
		s.unqueue(c, nil)
		return s.answer(c.m, errorResponse(c.m.id, codeInternalError, fmt.Sprintf(
			"mcp: not checked: a call that may change the filesystem was still unanswered after %v", s.p.cfg.GateTimeout)))
	}
	st := s.p.state() // one ticket for the whole call
	v := s.p.decide(st, c)
	if !v.forward {
		s.unqueue(c, nil)
		return s.answer(c.m, v.answer)
	}
	line, err := s.p.filterParams(st, c.m, c.params, c.line)
	if err != nil {
		s.p.settle(v.decision, guard.Release)
		s.unqueue(c, nil)
		return s.answer(c.m, errorResponse(c.m.id, codeInvalidParams, err.Error()))
	}
	s.gate.enter(c.m.key, c.readOnly())
	s.unqueue(c, &pendingReq{call: true, decision: v.decision, dirs: c.spec.ListsDirectories})
	if err := s.server.line(line); err != nil {
		s.answered(c.m.key)
		s.p.settle(v.decision, guard.Release)
		s.p.log.Printf("tools/call %q: could not forward to the server: %v", c.name, err)
	}
	return nil
}
