package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
		toolsList: newIDTable(),
		rootsReqs: newIDTable(),
		refused:   newIDTable(),
	}
	go func() {
		s.pump(agentIn, s.fromAgent)
		serverIn.Close()
		if agentDone != nil {
			agentDone()
		}
	}()
	down := make(chan error, 1)
	go func() { down <- s.pump(serverOut, s.fromServer) }()
	select {
	case err := <-down:
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
	toolsList     *idTable // agent→server tools/list requests awaiting a response
	rootsReqs     *idTable // server→agent roots/list requests awaiting an answer
	refused       *idTable // agent→server tools/call ids the proxy answered
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

// pump handles every line of r until it ends (nil) or handle fails.
func (s *session) pump(r io.Reader, handle func(line []byte, tooLong bool) error) error {
	lr := newLineReader(r, s.p.cfg.MaxMessageBytes)
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := handle(line, tooLong); err != nil {
			return err
		}
	}
}

// undecodable handles a line that is too long or not one JSON object: a
// visible request is answered on back (to the side that sent it), anything
// else is dropped. Either way it is logged.
func (s *session) undecodable(line []byte, tooLong bool, from string, back *writer, why error) error {
	id, isRequest := sniff(line)
	code, msg := codeParseError, "mcp: message is not valid JSON-RPC"
	switch {
	case tooLong:
		code, msg = codeInvalidRequest, fmt.Sprintf("mcp: message longer than %d bytes", s.p.cfg.MaxMessageBytes)
	case json.Valid(line):
		code, msg = codeInvalidRequest, "mcp: message is not valid JSON-RPC: "+why.Error()
	}
	if !isRequest {
		s.p.log.Printf("dropped a message from the %s: %s", from, msg)
		return nil
	}
	s.p.log.Printf("answered a request from the %s with an error: %s", from, msg)
	return back.line(errorResponse(id, code, msg))
}

// batch refuses a JSON array: each request in it is answered with an
// error on its own line (an array answer would be a batch too), and nothing
// of it is forwarded.
func (s *session) batch(line []byte, from string, back *writer) error {
	var elems []json.RawMessage
	_ = json.Unmarshal(line, &elems)
	s.p.log.Printf("refused a batch of %d messages from the %s", len(elems), from)
	for _, e := range elems {
		if m, err := parseMessage(e, false); err == nil && m.isRequest() {
			if err := back.line(errorResponse(m.id, codeInvalidRequest, "mcp: JSON-RPC batches are not supported")); err != nil {
				return err
			}
		}
	}
	return nil
}

// fromAgent handles one line from the agent.
func (s *session) fromAgent(line []byte, tooLong bool) error {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong:
		return s.undecodable(line, true, "agent", s.agent, nil)
	case len(trimmed) == 0:
		return nil
	case trimmed[0] == '[':
		return s.batch(trimmed, "agent", s.agent)
	}
	m, err := parseMessage(trimmed, true)
	if err != nil {
		return s.undecodable(trimmed, false, "agent", s.agent, err)
	}
	switch {
	case m.isRequest():
		return s.agentRequest(m, line)
	case m.method == "tools/call":
		// Without an id there is no one to answer, and a call is never
		// forwarded unchecked.
		s.p.log.Printf("dropped a tools/call without an id")
		return nil
	case m.isNotification():
		if m.method == "notifications/cancelled" && s.refused.take(cancelledID(m)) {
			return nil // the server never saw that request
		}
	default:
		return s.agentResponse(m, line)
	}
	return s.server.line(line)
}

func (s *session) agentRequest(m *message, line []byte) error {
	s.refused.take(m.key) // the id is in use again
	answer := func(b []byte) error {
		s.refused.add(m.key) // the server never sees this id
		return s.agent.line(b)
	}
	st := s.p.state() // one ticket for the whole request
	var params map[string]json.RawMessage
	if raw, ok := present(m.fields, "params"); ok && len(st.paths) > 0 {
		var err error
		if params, err = strictObject(raw); err != nil {
			return answer(errorResponse(m.id, codeInvalidParams, "mcp: params must be a JSON object without duplicate names"))
		}
	}
	switch m.method {
	case "tools/call":
		if v := s.p.checkCall(st, m); !v.forward {
			return answer(v.answer)
		}
	case "tools/list":
		s.toolsList.add(m.key)
	}
	if params != nil {
		np, err := s.p.filterInputResponses(st, params)
		if err != nil {
			return answer(errorResponse(m.id, codeInvalidParams, err.Error()))
		}
		if np != nil {
			m.fields["params"] = np
			line = marshal(m.fields)
		}
	}
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
func (s *session) fromServer(line []byte, tooLong bool) error {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong:
		return s.undecodable(line, true, "server", s.server, nil)
	case len(trimmed) == 0:
		return nil
	case trimmed[0] == '[':
		return s.batch(trimmed, "server", s.server)
	}
	m, err := parseMessage(trimmed, false)
	if err != nil {
		return s.undecodable(trimmed, false, "server", s.server, err)
	}
	switch {
	case m.isRequest():
		if m.method == "roots/list" {
			s.rootsReqs.add(m.key)
		}
	case !m.hasMethod && s.toolsList.take(m.key):
		if nr := s.p.filterTools(m.fields["result"]); nr != nil {
			m.fields["result"] = nr
			line = marshal(m.fields)
		}
	}
	return s.agent.line(line)
}

// cancelledID returns the normalised requestId of a cancellation.
func cancelledID(m *message) idKey {
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.fields["params"], &params) != nil {
		return ""
	}
	k, _ := keyOf(params.RequestID)
	return k
}
