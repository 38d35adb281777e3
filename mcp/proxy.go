package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// Serve proxies one MCP session: newline-delimited JSON-RPC from agentIn
// to serverIn and from serverOut to agentOut. Every message passes through
// byte for byte except the ones the proxy acts on (see the package
// documentation). When agentIn ends, Serve closes serverIn, so the server
// sees its input end. Serve returns when serverOut ends (nil), when writing
// to the agent fails, or when ctx is done; it does not close the other
// streams, and a goroutine reading agentIn stays blocked until that read
// returns.
func (p *Proxy) Serve(ctx context.Context, agentIn io.Reader, agentOut io.Writer, serverIn io.WriteCloser, serverOut io.Reader) error {
	return p.serve(ctx, agentIn, agentOut, serverIn, serverOut, nil)
}

func (p *Proxy) serve(ctx context.Context, agentIn io.Reader, agentOut io.Writer, serverIn io.WriteCloser, serverOut io.Reader, agentDone func()) error {
	s := &session{
		p:         p,
		agent:     &writer{w: agentOut},
		server:    &writer{w: serverIn},
		rootsReqs: newIDTable(),
		refused:   newIDTable(),
		gate:      newGate(),
		calls:     make(chan *pendingCall, maxQueuedCalls),
		queued:    map[idKey]*pendingCall{},
		pending:   map[idKey]pendingReq{},
		done:      make(chan struct{}),
		ended:     make(chan struct{}),
		failed:    make(chan error, 1),
	}
	defer func() {
		close(s.done)
		s.settleUnanswered()
	}()
	go s.runCalls(func() {
		serverIn.Close()
		if agentDone != nil {
			agentDone()
		}
	})
	go func() {
		s.pump(agentIn, s.fromAgent)
		close(s.ended)
		// The end of the agent's input is queued behind its calls, so that
		// every call it sent reaches the server before the server's input
		// is closed.
		select {
		case s.calls <- nil:
		case <-s.done:
		}
	}()
	down := make(chan error, 1)
	go func() { down <- s.pump(serverOut, s.fromServer) }()
	select {
	case err := <-down:
		return err
	case err := <-s.failed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// session is the state of one Serve. Request ids are tracked per
// direction, so equal ids sent by the agent and by the server never mix.
type session struct {
	p             *Proxy
	agent, server *writer
	rootsReqs     *idTable // server→agent roots/list requests awaiting an answer
	refused       *idTable // agent→server tools/call ids the proxy answered
	gate          *gate    // tools/call requests the server is running

	calls       chan *pendingCall // tools/call requests waiting for the gate, in order
	mu          sync.Mutex
	queued      map[idKey]*pendingCall // the same, by id, for cancellations
	queuedBytes int                    // the bytes of their lines
	pending     map[idKey]pendingReq   // forwarded requests awaiting the server's answer

	done   chan struct{} // closed when Serve returns
	ended  chan struct{} // closed when the agent's input ended
	failed chan error    // the call worker could not write to the agent
}

// writer serialises whole lines onto one stream.
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *writer) line(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := make([]byte, 0, len(b)+1)
	_, err := w.w.Write(append(append(buf, b...), '\n'))
	return err
}

// pump handles every line of r until it ends (nil) or handle fails. long
// is the top level of a line too long to keep, nil for any other line.
func (s *session) pump(r io.Reader, handle func(line []byte, long *topScan) error) error {
	lr := newLineReader(r, s.p.cfg.MaxMessageBytes)
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var long *topScan
		if tooLong {
			long = &lr.scan
		}
		if err := handle(line, long); err != nil {
			return err
		}
	}
}

// fromAgent handles one line from the agent.
func (s *session) fromAgent(line []byte, long *topScan) error {
	trimmed := trimJSON(line)
	switch {
	case long != nil:
		return s.tooLong(long, "agent", s.agent)
	case len(trimmed) == 0:
		return nil
	case trimmed[0] == '[':
		return s.batch(trimmed, "agent", s.agent)
	}
	m, err := parseMessage(trimmed, true)
	var ae *aliasError
	if errors.As(err, &ae) {
		return s.refuseAlias(trimmed, ae)
	}
	if err != nil {
		return s.undecodable(trimmed, "agent", s.agent, err)
	}
	if m.hasMethod {
		if err := s.checkRequest(m); err != nil {
			if !m.isRequest() {
				s.p.log.Printf("dropped a message from the agent: %v", err)
				return nil
			}
			id := m.id
			if _, idErr := agentID(id); idErr != nil {
				id = json.RawMessage("null")
			}
			s.p.log.Printf("answered a request from the agent with an error: %v", err)
			return s.agent.line(errorResponse(id, codeInvalidRequest, err.Error()))
		}
	}
	params, err := agentParams(m)
	if err != nil {
		if !m.isRequest() {
			s.p.log.Printf("dropped a message from the agent: %v", err)
			return nil
		}
		return s.answer(m, errorResponse(m.id, codeInvalidParams, err.Error()))
	}
	switch {
	case m.isRequest():
		return s.agentRequest(m, params, line)
	case m.method == "tools/call":
		// Without an id there is no one to answer, and a call is never
		// forwarded unchecked.
		s.p.log.Printf("dropped a tools/call without an id")
		return nil
	case m.isNotification():
		if m.method == "notifications/cancelled" && s.cancelled(params["requestId"]) {
			return nil
		}
	default:
		return s.agentResponse(m, line)
	}
	return s.server.line(line)
}

// checkRequest refuses a request or notification of the agent's that the
// server would read otherwise than the guard, or drop unanswered: members
// JSON-RPC 2.0 does not define, another jsonrpc than "2.0", an id the two
// may read apart (see agentID).
func (s *session) checkRequest(m *message) error {
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
func (s *session) answer(m *message, b []byte) error {
	s.refused.add(m.key)
	return s.agent.line(b)
}

func (s *session) agentRequest(m *message, params map[string]json.RawMessage, line []byte) error {
	if m.method == "tools/call" {
		c, bad := s.p.parseCall(m, params, line)
		if bad != nil {
			return s.answer(m, bad)
		}
		return s.queue(c)
	}
	line, err := s.p.filterParams(s.p.state(), m, params, line)
	if err != nil {
		return s.answer(m, errorResponse(m.id, codeInvalidParams, err.Error()))
	}
	if err := s.claim(m.key, pendingReq{toolsList: m.method == "tools/list"}); err != nil {
		s.p.log.Printf("answered a request from the agent with an error: %v", err)
		return s.agent.line(errorResponse(m.id, codeInvalidRequest, err.Error()))
	}
	s.refused.take(m.key) // the id is in use again
	return s.server.line(line)
}

// agentResponse forwards the agent's answer to a server request, with the
// roots of a roots/list answer filtered. Every answer whose result holds
// roots is filtered, whether its id was tracked or not (an answer to an id
// the table forgot, or one the agent guessed, must not slip through). An
// answer that cannot be checked is replaced by an error to the server.
func (s *session) agentResponse(m *message, line []byte) error {
	s.rootsReqs.take(m.key)
	if res, ok := m.fields["result"]; ok {
		nr, err := s.p.filterRoots(s.p.state(), res)
		if err != nil {
			s.p.log.Printf("replaced an answer from the agent with an error: %v", err)
			return s.server.line(errorResponse(m.id, codeInternalError, err.Error()))
		}
		if nr != nil {
			m.fields["result"] = nr
			line = marshal(m.fields)
		}
	}
	return s.server.line(line)
}

// fromServer handles one line from the server.
func (s *session) fromServer(line []byte, long *topScan) error {
	trimmed := trimJSON(line)
	switch {
	case long != nil:
		return s.tooLong(long, "server", s.server)
	case len(trimmed) == 0:
		return nil
	case trimmed[0] == '[':
		return s.batch(trimmed, "server", s.server)
	}
	m, err := parseMessage(trimmed, false)
	if err != nil {
		return s.undecodable(trimmed, "server", s.server, err)
	}
	switch {
	case m.isRequest():
		if m.method == "roots/list" {
			s.rootsReqs.add(m.key)
		}
	case !m.hasMethod:
		r, _ := s.answered(m.key)
		if r.decision != nil {
			s.p.settle(r.decision, outcomeOf(m.fields))
		}
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
			line = marshal(m.fields)
		}
	}
	return s.agent.line(line)
}

// keyOf1 is keyOf without its second result.
func keyOf1(raw json.RawMessage) idKey {
	k, _ := keyOf(raw)
	return k
}
