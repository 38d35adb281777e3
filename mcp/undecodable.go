package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/tickettool/tickettool/guard"
)

// Messages the proxy answers or drops instead of forwarding.

// tooLong handles a line longer than the limit, whose top level scan saw
// as it streamed past: a request is answered on back (to the side that sent
// it) with an error; a response from the server to one of the agent's
// requests is replaced by an error to the agent, so that the agent is not
// left waiting; anything else is dropped. Either way it is logged.
func (s *Session) tooLong(scan *topScan, from string) Step {
	msg := fmt.Sprintf("mcp: message longer than %d bytes", s.p.cfg.MaxMessageBytes)
	switch {
	case scan.hasMethod && scan.id != nil:
		s.p.log.Printf("answered a request from the %s with an error: %s", from, msg)
		answer := errorResponse(scan.id, codeInvalidRequest, msg)
		if from == "agent" {
			s.refused.add(keyOf1(scan.id))
			return toAgent(answer)
		}
		return toServer(answer)
	case !scan.hasMethod && scan.id != nil && from == "server":
		if r, _ := s.answered(keyOf1(scan.id)); r.decision != nil {
			s.p.settle(r.decision, guard.Capture) // it ran; only its answer is lost
		}
		s.p.log.Printf("replaced an answer from the server with an error: %s", msg)
		return toAgent(errorResponse(scan.id, codeInternalError, "mcp: the server's answer was longer than the guard's limit of "+fmt.Sprint(s.p.cfg.MaxMessageBytes)+" bytes"))
	}
	s.p.log.Printf("dropped a message from the %s: %s", from, msg)
	return Step{}
}

// undecodable handles a line that is not one JSON object: a visible request
// is answered on back (to the side that sent it), anything else is dropped.
// Either way it is logged.
func (s *Session) undecodable(line []byte, from string, why error) [][]byte {
	id, isRequest := sniff(line)
	code, msg := codeParseError, "mcp: message is not valid JSON-RPC"
	if json.Valid(line) {
		code, msg = codeInvalidRequest, "mcp: message is not valid JSON-RPC: "+why.Error()
	}
	if !isRequest {
		s.p.log.Printf("dropped a message from the %s: %s", from, msg)
		return nil
	}
	s.p.log.Printf("answered a request from the %s with an error: %s", from, msg)
	return [][]byte{errorResponse(id, code, msg)}
}

// batch refuses a JSON array: each request in it is answered with an
// error on its own line (an array answer would be a batch too), and nothing
// of it is forwarded.
func (s *Session) batch(line []byte, from string) [][]byte {
	var elems []json.RawMessage
	_ = json.Unmarshal(line, &elems)
	s.p.log.Printf("refused a batch of %d messages from the %s", len(elems), from)
	var answers [][]byte
	for _, e := range elems {
		if m, err := parseMessage(e, false); err == nil && m.isRequest() {
			answers = append(answers, errorResponse(m.id, codeInvalidRequest, "mcp: JSON-RPC batches are not supported"))
		}
	}
	return answers
}

// refuseAlias answers a message with a member name that is a name the
// proxy reads in another case. It is never forwarded: a server that matches
// names case-insensitively would act on it unchecked.
func (s *Session) refuseAlias(line []byte, ae *aliasError) Step {
	id, _ := sniff(line)
	if k, err := agentID(id); err != nil {
		id = json.RawMessage("null")
	} else {
		s.refused.add(k)
	}
	s.p.log.Printf("refused a message from the agent: %v", ae)
	return toAgent(errorResponse(id, codeInvalidRequest, ae.Error()))
}
