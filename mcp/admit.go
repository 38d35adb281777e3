package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/tickettool/tickettool/guard"
)

// queue takes a parsed tools/call in: its id counts as pending from now on,
// and the transport gives it to Admit once the calls the agent sent before
// it were. The transport goes on with the next message meanwhile, so
// answers the server waits for (roots, elicitation) are never held up
// behind a waiting call.
func (s *Session) queue(c *Call) Step {
	s.mu.Lock()
	err := s.claimableLocked(c.m.key)
	switch {
	case err != nil:
	case len(s.queued) >= maxQueuedCalls:
		s.mu.Unlock()
		return s.answer(c.m, errorResponse(c.m.id, codeInternalError,
			fmt.Sprintf("mcp: %d calls are already waiting for the calls in flight", maxQueuedCalls)))
	case s.queuedBytes+len(c.line) > maxQueuedBytes:
		err = fmt.Errorf("mcp: calls of %d bytes are already waiting for the calls in flight", s.queuedBytes)
	default:
		s.queued[c.m.key] = c
		s.queuedBytes += len(c.line)
	}
	s.mu.Unlock()
	if err != nil {
		s.p.log.Printf("answered a request from the agent with an error: %v", err)
		return toAgent(errorResponse(c.m.id, codeInvalidRequest, err.Error()))
	}
	s.refused.take(c.m.key) // the id is in use again
	return Step{Call: c}
}

// unqueue takes c out of the queued calls; with r set, its id is pending
// with r from then on, in the same step, so that no request with the same
// id can slip in between.
func (s *Session) unqueue(c *Call, r *pendingReq) {
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
func (s *Session) cancelled(requestID json.RawMessage) bool {
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
		if s.cancels != nil && s.cancels(k) {
			// The transport closes the call's stream: its outcome is then
			// unknown (held, then captured), as when a stream breaks.
			s.p.log.Printf("passed on a cancellation of a call the server is running: its stream to the server is closed, and its outcome is unknown")
			return false
		}
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

// Admit checks a tools/call FromAgent handed back, once the gate lets it
// through (see gate), and says what to send: an allowed call to the server
// (its id pending from now on, its budgets reserved), anything else an
// answer to the agent. It blocks while calls in flight hold the gate, at
// most Config.GateTimeout, until the session ends; a call the agent
// cancelled meanwhile comes back as an empty Step. Calls must be admitted
// in the order the agent sent them.
func (s *Session) Admit(c *Call) Step {
	if s.p.client {
		// The proof and discharges of the request that carried the call:
		// without a proof, a bound ticket refuses it.
		if v, ok := s.p.proofs.LoadAndDelete(c.m.key); ok {
			pr := v.(*presented)
			c.holder, c.discharges = pr.holder, pr.discharges
		}
	}
	return s.admitUnder(c, s.p.state)
}

// admitUnder is Admit with the ticket the call is decided under, read
// once the gate lets the call through: the proxy's own (Proxy.state), or,
// for a transport whose clients present their own, the client's.
func (s *Session) admitUnder(c *Call, ticket func() *ticketState) Step {
	ready := s.gate.wait(c.readOnly(), s.p.cfg.GateTimeout, s.done, s.ended)
	switch {
	case c.cancelled.Load():
		s.unqueue(c, nil)
		return Step{}
	case !ready:
		s.unqueue(c, nil)
		return s.answer(c.m, errorResponse(c.m.id, codeInternalError, fmt.Sprintf(
			"mcp: not checked: a call that may change the filesystem was still unanswered after %v", s.p.cfg.GateTimeout)))
	}
	st := ticket() // one ticket for the whole call
	var v verdict
	if k := s.resume(c); k != nil {
		s.p.log.Printf("tools/call %q continues the call the server asked input for: no new charge", c.name)
		v = verdict{forward: true, decision: k.decision}
	} else {
		v = s.p.decide(st, c)
	}
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
	s.unqueue(c, &pendingReq{call: true, decision: v.decision, dirs: c.spec.ListsDirectories, tool: c.name, digest: c.digest})
	return toServer(line)
}

// Unsent says an allowed call Admit returned could not be sent to the
// server: it never ran, so its budgets are given back.
func (s *Session) Unsent(c *Call, err error) {
	s.lost(c.m.id, false)
	s.p.log.Printf("tools/call %q: could not forward to the server: %v", c.name, err)
}
