package mcp

import (
	"fmt"

	"github.com/tickettool/tickettool/guard"
)

// pendingReq is what the proxy does with the server's answer to a request
// the agent sent. An id is pending from the request's arrival until that
// answer, and a second request with the same id is refused meanwhile, so an
// answer is never taken for another request's (the answer to a ping must
// not release the gate held by a move_file with the same id).
type pendingReq struct {
	call      bool            // a tools/call: the gate counts it in flight
	decision  *guard.Decision // the call's admission, settled by the answer
	toolsList bool            // a tools/list: the answer's tools are filtered
	dirs      bool            // a directory listing: the answer is cut down
	tool      string          // a call's tool, and its args digest, for a retry
	digest    []byte
}

// claim marks id k pending with r, or says why it cannot be.
func (s *Session) claim(k idKey, r pendingReq) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.claimableLocked(k); err != nil {
		return err
	}
	s.pending[k] = r
	return nil
}

func (s *Session) claimableLocked(k idKey) error {
	if _, busy := s.pending[k]; busy {
		return errIDInUse
	}
	if _, busy := s.queued[k]; busy {
		return errIDInUse
	}
	if len(s.pending)+len(s.queued) >= maxPending {
		return fmt.Errorf("mcp: %d requests are already awaiting their answers", maxPending)
	}
	return nil
}

// answered takes id k out of the pending requests when the server answers
// it, and does what the answer needs: a call leaves the gate.
func (s *Session) answered(k idKey) (pendingReq, bool) {
	s.mu.Lock()
	r, ok := s.pending[k]
	delete(s.pending, k)
	s.mu.Unlock()
	if ok && r.call {
		s.gate.answered(k)
	}
	return r, ok
}

// settleUnanswered captures, when the session ends, every call the server
// never answered: its outcome is unknown and no answer can come now to
// show it never ran, so it counts as spent, as its hold would make it, and
// the settlement leaves its receipt now rather than never.
func (s *Session) settleUnanswered() {
	s.mu.Lock()
	var open []*guard.Decision
	for k, r := range s.pending {
		if r.decision != nil {
			open = append(open, r.decision)
		}
		delete(s.pending, k)
	}
	s.mu.Unlock()
	for _, d := range open {
		s.p.log.Printf("the session ended before the server answered a call: it counts as spent")
		s.p.settle(d, guard.Capture)
	}
}
