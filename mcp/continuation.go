package mcp

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/tickettool/tickettool/guard"
)

// Multi round-trip requests (2026-07-28, basic/patterns/mrtr): a server
// may answer a tools/call with an input-required result (resultType
// "input_required") carrying a requestState, and the client retries the
// call, under a new id, with the input it asked for and that requestState.
// The retry is the same call: it continues the admission the first
// request made (one charge, one allowed call and one settlement in the
// receipts) when it names the same tool with arguments of the same args
// digest and echoes a requestState the guard saw in an answer to that
// call, within continuationTTL. A remembered state is used once. Any other
// retry (an unknown, reused, expired or mismatched requestState) is a new
// call, checked and charged as such. An input-required answer nobody
// continues counts as spent once its state expires or the session ends:
// the server did part of the work.

// continuation is an admission waiting for its call's retry.
type continuation struct {
	decision *guard.Decision
	tool     string
	digest   []byte
	dirs     bool
	expires  time.Time
}

// inputRequired returns the requestState of an input-required result, or
// "" when the answer is not one or carries none.
func inputRequired(fields map[string]json.RawMessage) string {
	var r struct {
		ResultType   string          `json:"resultType"`
		RequestState json.RawMessage `json:"requestState"`
	}
	raw := fields["result"]
	// Most answers are not: skip decoding one that cannot name the type
	// (an escape could spell it any way).
	if !bytes.Contains(raw, []byte("_required")) && bytes.IndexByte(raw, '\\') < 0 {
		return ""
	}
	if json.Unmarshal(raw, &r) != nil || r.ResultType != "input_required" {
		return ""
	}
	var state string
	if json.Unmarshal(r.RequestState, &state) != nil {
		return ""
	}
	return state
}

// remember keeps an allowed call's admission for its retry, under the
// requestState of the server's input-required answer. It reports false
// (the caller then settles the call) when it cannot be kept.
func (s *Session) remember(state string, r pendingReq) bool {
	if state == "" || r.digest == nil || len(state) > maxRequestStateBytes {
		return false
	}
	now := s.p.cfg.Now()
	s.mu.Lock()
	expired := s.expireLocked(now)
	_, dup := s.continuations[state]
	kept := !dup && len(s.continuations) < maxContinuations
	if kept {
		s.continuations[state] = &continuation{decision: r.decision, tool: r.tool, digest: r.digest, dirs: r.dirs,
			expires: now.Add(min(continuationTTL, s.p.cfg.Hold))}
	}
	s.mu.Unlock()
	s.capture(expired)
	return kept
}

// capture settles admissions whose retry never came: counted as spent.
func (s *Session) capture(ds []*guard.Decision) {
	for _, d := range ds {
		s.p.log.Printf("a call the server asked input for was not continued in time: it counts as spent")
		s.p.settle(d, guard.Capture)
	}
}

// resume takes the admission a retry continues, or nil when it is a new
// call.
func (s *Session) resume(c *Call) *continuation {
	if c.requestState == "" {
		return nil
	}
	now := s.p.cfg.Now()
	s.mu.Lock()
	expired := s.expireLocked(now)
	k, ok := s.continuations[c.requestState]
	if ok && (k.tool != c.name || !bytes.Equal(k.digest, c.digest)) {
		k, ok = nil, false // another call's state: this one is new
	}
	if ok {
		delete(s.continuations, c.requestState) // used once
	}
	s.mu.Unlock()
	s.capture(expired)
	return k
}

// expireLocked takes out the admissions whose retry did not come in time,
// for the caller to capture once it released the lock.
func (s *Session) expireLocked(now time.Time) []*guard.Decision {
	var out []*guard.Decision
	for state, k := range s.continuations {
		if !now.Before(k.expires) {
			delete(s.continuations, state)
			out = append(out, k.decision)
		}
	}
	return out
}

// settleContinuations captures, when the session ends, every admission
// still waiting for its retry.
func (s *Session) settleContinuations() {
	s.mu.Lock()
	open := s.continuations
	s.continuations = map[string]*continuation{}
	s.mu.Unlock()
	for _, k := range open {
		s.p.settle(k.decision, guard.Capture)
	}
}
