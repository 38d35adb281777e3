package mcp

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/tickettool/tickettool/guard"
)

// Session is the call policy of one MCP session, whatever carries its
// messages: the checks the package documentation lists, made on whole
// JSON-RPC messages, with what to send where as the answer. A transport
// (stdio lines, Streamable HTTP) only moves bytes: it gives the policy each
// message from the agent (FromAgent) and from the server (FromServer),
// admits each tools/call the policy hands back (Admit) in the order the
// agent sent them, and sends what each Step says. Every transport of a
// Proxy therefore makes exactly the same decisions.
//
// A Session is safe for concurrent use; FromAgent must see the agent's
// messages in the order they came, and FromServer the server's.
type Session struct {
	p         *Proxy
	rootsReqs *idTable // server→agent roots/list requests awaiting an answer
	refused   *idTable // agent→server tools/call ids the proxy answered
	gate      *gate    // tools/call requests the server is running
	// cancels, when the transport has it, reports whether a cancellation
	// of the forwarded request k ends it at the transport (the closing of
	// its 2026-07-28 stream), so that one of a running call is passed on.
	cancels func(k idKey) bool

	mu          sync.Mutex
	queued      map[idKey]*Call      // tools/call requests waiting for Admit
	queuedBytes int                  // the bytes of their messages
	pending     map[idKey]pendingReq // forwarded requests awaiting the server's answer
	// continuations are admissions awaiting their call's retry, by the
	// requestState of the server's input-required answer.
	continuations map[string]*continuation

	ended    chan struct{} // closed by AgentEnded
	endOnce  sync.Once
	doneOnce sync.Once
	done     chan struct{} // closed by End
}

// Step is what the policy does with one message: the messages to send to
// the server and to the agent, in order, and a tools/call the transport
// must give to Admit (after the calls the agent sent before it).
type Step struct {
	Server [][]byte
	Agent  [][]byte
	Call   *Call
}

func toAgent(b []byte) Step  { return Step{Agent: [][]byte{b}} }
func toServer(b []byte) Step { return Step{Server: [][]byte{b}} }

// NewSession starts the policy of one session under p's ticket, budgets
// and receipts. End it with End.
func (p *Proxy) NewSession() *Session {
	return &Session{
		p:             p,
		rootsReqs:     newIDTable(),
		refused:       newIDTable(),
		gate:          newGate(),
		queued:        map[idKey]*Call{},
		pending:       map[idKey]pendingReq{},
		continuations: map[string]*continuation{},
		ended:         make(chan struct{}),
		done:          make(chan struct{}),
	}
}

// AgentEnded says the agent will send nothing more: a call still waiting
// for the calls in flight then waits at most ShutdownGrace more.
func (s *Session) AgentEnded() { s.endOnce.Do(func() { close(s.ended) }) }

// End ends the session: a call waiting in Admit is given up, and every
// forwarded call the server has not answered is captured (no answer can
// come now to show it never ran), with its settlement receipt.
func (s *Session) End() {
	s.doneOnce.Do(func() { close(s.done) })
	s.settleUnanswered()
	s.settleContinuations()
}

// FromAgent decides one message from the agent (one JSON value; an array is
// a batch, refused).
func (s *Session) FromAgent(msg []byte) Step {
	trimmed := trimJSON(msg)
	switch {
	case len(trimmed) == 0:
		return Step{}
	case trimmed[0] == '[':
		return Step{Agent: s.batch(trimmed, "agent")}
	}
	m, err := parseMessage(trimmed, true)
	var ae *aliasError
	if errors.As(err, &ae) {
		return s.refuseAlias(trimmed, ae)
	}
	if err != nil {
		return Step{Agent: s.undecodable(trimmed, "agent", err)}
	}
	if m.hasMethod {
		if err := s.checkRequest(m); err != nil {
			if !m.isRequest() {
				s.p.log.Printf("dropped a message from the agent: %v", err)
				return Step{}
			}
			id := m.id
			if _, idErr := agentID(id); idErr != nil {
				id = json.RawMessage("null")
			}
			s.p.log.Printf("answered a request from the agent with an error: %v", err)
			return toAgent(errorResponse(id, codeInvalidRequest, err.Error()))
		}
	}
	params, err := agentParams(m)
	if err != nil {
		if !m.isRequest() {
			s.p.log.Printf("dropped a message from the agent: %v", err)
			return Step{}
		}
		return s.answer(m, errorResponse(m.id, codeInvalidParams, err.Error()))
	}
	switch {
	case m.isRequest():
		return s.agentRequest(m, params, msg)
	case m.method == "tools/call":
		// Without an id there is no one to answer, and a call is never
		// forwarded unchecked.
		s.p.log.Printf("dropped a tools/call without an id")
		return Step{}
	case m.isNotification():
		if m.method == "notifications/cancelled" && s.cancelled(params["requestId"]) {
			return Step{}
		}
	default:
		return s.agentResponse(m, msg)
	}
	return toServer(msg)
}

// checkRequest refuses a request or notification of the agent's that the
// server would read otherwise than the guard, or drop unanswered: members
// JSON-RPC 2.0 does not define, another jsonrpc than "2.0", an id the two
// may read apart (see agentID).
func (s *Session) checkRequest(m *message) error {
	if err := checkShape(m); err != nil {
		return err
	}
	if !m.isRequest() {
		return nil
	}
	_, err := agentID(m.id)
	return err
}

// answer answers a request of the agent's here; the server never sees its
// id, so a cancellation of it is dropped.
func (s *Session) answer(m *message, b []byte) Step {
	s.refused.add(m.key)
	return toAgent(b)
}

func (s *Session) agentRequest(m *message, params map[string]json.RawMessage, msg []byte) Step {
	if m.method == "tools/call" {
		c, bad := s.p.parseCall(m, params, msg)
		if bad != nil {
			return s.answer(m, bad)
		}
		return s.queue(c)
	}
	msg, err := s.p.filterParams(s.p.state(), m, params, msg)
	if err != nil {
		return s.answer(m, errorResponse(m.id, codeInvalidParams, err.Error()))
	}
	if err := s.claim(m.key, pendingReq{toolsList: m.method == "tools/list"}); err != nil {
		s.p.log.Printf("answered a request from the agent with an error: %v", err)
		return toAgent(errorResponse(m.id, codeInvalidRequest, err.Error()))
	}
	s.refused.take(m.key) // the id is in use again
	return toServer(msg)
}

// agentResponse forwards the agent's answer to a server request, with the
// roots of a roots/list answer filtered. Every answer whose result holds
// roots is filtered, whether its id was tracked or not (an answer to an id
// the table forgot, or one the agent guessed, must not slip through). An
// answer that cannot be checked is replaced by an error to the server.
func (s *Session) agentResponse(m *message, msg []byte) Step {
	s.rootsReqs.take(m.key)
	if res, ok := m.fields["result"]; ok {
		nr, err := s.p.filterRoots(s.p.state(), res)
		if err != nil {
			s.p.log.Printf("replaced an answer from the agent with an error: %v", err)
			return toServer(errorResponse(m.id, codeInternalError, err.Error()))
		}
		if nr != nil {
			m.fields["result"] = nr
			msg = marshal(m.fields)
		}
	}
	return toServer(msg)
}

// FromServer decides one message from the server: usually the message
// itself, or rewritten, for the agent.
func (s *Session) FromServer(msg []byte) Step {
	trimmed := trimJSON(msg)
	switch {
	case len(trimmed) == 0:
		return Step{}
	case trimmed[0] == '[':
		return Step{Server: s.batch(trimmed, "server")}
	}
	m, err := parseMessage(trimmed, false)
	if err != nil {
		return Step{Server: s.undecodable(trimmed, "server", err)}
	}
	switch {
	case m.isRequest():
		if m.method == "roots/list" {
			s.rootsReqs.add(m.key)
		}
	case !m.hasMethod:
		r, _ := s.answered(m.key)
		res, isResult := m.fields["result"]
		var nr json.RawMessage
		switch {
		case !isResult:
		case r.toolsList:
			nr = s.p.filterTools(res)
		case r.dirs:
			nr = s.p.filterDirs(res)
		}
		if nr != nil {
			m.fields["result"] = nr
			msg = marshal(m.fields)
			res = nr
		}
		if r.decision != nil && !s.remember(inputRequired(m.fields), r) {
			o := outcomeOf(m.fields)
			if o == guard.Capture {
				// Kept before the agent gets the answer: a guard killed
				// after this still replays it.
				s.p.finishOperation(r.decision, kept(m.fields, res))
			}
			s.p.settle(r.decision, o)
		}
	}
	return toAgent(msg)
}

// Unanswered says the server's answer to the agent's request id will never
// come: the request did not reach the server (reached false: a call's
// budgets are given back) or may have (the stream that was to carry the
// answer broke or was closed: a call's outcome is unknown, so it counts as
// spent). Either settlement leaves its receipt. The agent is answered with
// an error saying why, so that it is not left waiting; an id not pending
// gives an empty Step.
func (s *Session) Unanswered(id json.RawMessage, reached bool, why string) Step {
	r, ok := s.lost(id, reached)
	if !ok {
		return Step{}
	}
	msg := "mcp: " + why
	if r.decision != nil && reached {
		msg += "; the call may have run, so it counts as spent"
	}
	s.p.log.Printf("answered a request from the agent with an error: %s", msg)
	return toAgent(errorResponse(id, codeInternalError, msg))
}

// lost takes id out of the pending requests, as an answer would, and
// settles a call: captured when the request may have reached the server,
// released when it did not.
func (s *Session) lost(id json.RawMessage, reached bool) (pendingReq, bool) {
	k, ok := keyOf(id)
	if !ok {
		return pendingReq{}, false
	}
	r, ok := s.answered(k)
	if ok && r.decision != nil {
		o := guard.Release
		if reached {
			o = guard.Capture
		}
		s.p.settle(r.decision, o)
	}
	return r, ok
}

// keyOf1 is keyOf without its second result.
func keyOf1(raw json.RawMessage) idKey {
	k, _ := keyOf(raw)
	return k
}
