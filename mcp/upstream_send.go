package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"
)

// line sends one message of the policy's to the server, on a request of
// its own: it never blocks on the server.
func (h *httpSide) line(msg []byte) error {
	msg = bytes.Clone(msg) // it may be the reader's buffer, and is sent later
	o, err := readOutgoing(msg)
	if err != nil {
		h.p.log.Printf("dropped a message for the server: %v", err)
		return nil
	}
	if o.method == "notifications/cancelled" && h.cancelStream(o.cancelID) {
		return nil
	}
	if o.id != nil {
		h.inflight.Add(1)
	}
	select {
	case h.work <- o: // an idle sender takes it
	default:
		go h.sender(o)
	}
	return nil
}

// sender sends o, then the messages line hands it while it waits, for at
// most senderIdle between them: a request's HTTP round trip grows its
// goroutine's stack, which a sender keeps for the next.
func (h *httpSide) sender(o *outgoing) {
	idle := time.NewTimer(senderIdle)
	defer idle.Stop()
	for {
		h.send(o)
		idle.Reset(senderIdle)
		select {
		case o = <-h.work:
		case <-idle.C:
			return
		case <-h.ctx.Done():
			return
		}
	}
}

// cancelStream closes the stream of a stateless request the agent
// cancelled, which is how that revision cancels, and reports whether it
// did. A cancellation under the session revision is sent as it came.
func (h *httpSide) cancelStream(requestID json.RawMessage) bool {
	k, ok := keyOf(requestID)
	if !ok {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.streams[k]
	if !ok || !s.stateless {
		return false
	}
	s.cancel()
	return true
}

// cancels reports whether the request with key k is one whose stream
// cancelStream would close: a 2026-07-28 request still awaiting its answer.
func (h *httpSide) cancels(k idKey) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.streams[k]
	return ok && s.stateless
}

func (h *httpSide) send(o *outgoing) {
	if o.id != nil {
		defer h.inflight.Done()
	}
	r, err := h.routeOf(o)
	var ev *errVersion
	if errors.As(err, &ev) {
		h.p.log.Printf("answered a request from the agent with an error: %v", err)
		h.t.s.lost(o.id, false)
		if o.id != nil {
			h.t.fromTransport(toAgent(versionError(o.id, err.Error())))
		}
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	if o.id != nil {
		mine := &stream{cancel: cancel, stateless: r.stateless}
		h.mu.Lock()
		h.streams[o.key] = mine
		h.mu.Unlock()
		defer func() {
			// Once the answer reached the agent its id may be in use by a
			// new request already: only this request's entry goes.
			h.mu.Lock()
			if h.streams[o.key] == mine {
				delete(h.streams, o.key)
			}
			h.mu.Unlock()
		}()
	}
	h.post(ctx, o, r, true)
}

// stream is one request of the agent's awaiting its answer.
type stream struct {
	cancel    context.CancelFunc
	stateless bool
}

// post sends one message and relays what comes back. With retry set, a
// session the server no longer knows (404) is replaced by a new one and
// the message sent again in it.
func (h *httpSide) post(ctx context.Context, o *outgoing, r route, retry bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.up.URL, bytes.NewReader(o.msg))
	if err != nil {
		h.unanswered(o.id, false, "the request to the server could not be made: "+err.Error())
		return
	}
	h.headers(req, r.version, r.session)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.stateless && o.method != "" {
		req.Header.Set("Mcp-Method", o.method)
		if o.name != nil && (o.method == "tools/call" || o.method == "resources/read" || o.method == "prompts/get") {
			req.Header.Set("Mcp-Name", headerValue(*o.name))
		}
		h.setParams(req, o)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		var oe *net.OpError
		reached := !(errors.As(err, &oe) && oe.Op == "dial")
		switch {
		case ctx.Err() != nil:
			h.unanswered(o.id, true, "the guard closed the stream to the server (the request was cancelled, or the session ended)")
		default:
			h.unanswered(o.id, reached, "the server could not be reached: "+err.Error())
		}
		return
	}
	defer resp.Body.Close()
	if o.method == "initialize" && resp.StatusCode/100 == 2 {
		h.mu.Lock()
		h.session = resp.Header.Get("Mcp-Session-Id")
		h.mu.Unlock()
	}
	if retry && r.session != "" && sessionGone(resp) {
		io.Copy(io.Discard, io.LimitReader(resp.Body, sniffBytes))
		if err := h.reinit(r.session); err != nil {
			h.unanswered(o.id, false, "the server ended the session and a new one could not be started: "+err.Error())
			return
		}
		if o.method == "notifications/initialized" {
			return // the new session's own initialized was just sent
		}
		h.mu.Lock()
		r.session = h.session
		h.mu.Unlock()
		h.post(ctx, o, r, false)
		return
	}
	answered := h.relayBody(ctx, resp, o, r)
	switch {
	case answered || o.id == nil:
		if o.method == "notifications/initialized" && resp.StatusCode/100 == 2 {
			h.listen()
		}
	case resp.StatusCode == http.StatusAccepted:
		// The answer comes on the GET stream, if ever.
	case resp.StatusCode/100 != 2:
		h.unanswered(o.id, !refusedUnread(resp.StatusCode), fmt.Sprintf("the server answered HTTP %d", resp.StatusCode))
	case ctx.Err() != nil:
		h.unanswered(o.id, true, "the guard closed the stream to the server (the request was cancelled, or the session ended)")
	default:
		h.unanswered(o.id, true, "the server's stream ended before its answer")
	}
}

// sessionGone reports whether resp, the answer to a request in a session,
// says the server no longer knows the session: 404, as the transport
// specifies (basic/transports, session management), or 400 with a
// JSON-RPC error about the session, as servers built on the TypeScript
// SDK's example transports answer ("Bad Request: No valid session ID
// provided"). Either way the request was refused unread, so sending it
// again in a new session cannot run it twice. The part of the body read
// to tell is put back.
func sessionGone(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
	default:
		return false
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, sniffBytes))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	var e struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(head, &e) == nil && e.Error != nil && strings.Contains(strings.ToLower(e.Error.Message), "session")
}

// refusedUnread reports whether an HTTP status shows the server refused a
// request before acting on it: it never ran.
func refusedUnread(status int) bool {
	if status/100 == 3 { // a redirect, not followed
		return true
	}
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
		http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusRequestEntityTooLarge,
		http.StatusUnsupportedMediaType:
		return true
	}
	return false
}

// relayBody passes the messages of a response to the agent as they arrive
// and reports whether the answer to o came.
func (h *httpSide) relayBody(ctx context.Context, resp *http.Response, o *outgoing, r route) bool {
	answered := false
	var events sseEvents
	each := func(msg []byte) bool {
		if o.id != nil && answers(msg, o.key) {
			answered = true
			h.noteVersion(o, msg)
			if o.method == "tools/list" {
				if kept := h.learnParams(msg); kept != nil {
					msg = kept
				}
			}
		}
		h.deliver(msg)
		return !answered // the answer ends the stream
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	max := h.p.cfg.MaxMessageBytes
	switch {
	case ct == "text/event-stream":
		if err := readSSE(resp.Body, max, &events, each); errors.Is(err, errTooLong) {
			h.tooLongAnswer(o)
			return true
		}
		if !answered && o.id != nil && !r.stateless && r.session != "" && events.lastID != "" {
			return h.resume(ctx, o, r, &events, each)
		}
	case ct == "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
		if len(body) > max {
			h.tooLongAnswer(o)
			return true
		}
		if err == nil && len(bytes.TrimSpace(body)) > 0 {
			// An error status's body is relayed only when it answers o.
			if resp.StatusCode/100 == 2 || (o.id != nil && answers(body, o.key)) {
				each(body)
			}
		}
	default:
		io.Copy(io.Discard, io.LimitReader(resp.Body, int64(max)))
	}
	return answered
}

// tooLongAnswer answers o when the server's answer to it passes the
// guard's limit: it ran, only its answer is lost.
func (h *httpSide) tooLongAnswer(o *outgoing) {
	h.unanswered(o.id, true, fmt.Sprintf("the server's answer was longer than the guard's limit of %d bytes", h.p.cfg.MaxMessageBytes))
}

// answers reports whether msg is a response to the request with key k.
func answers(msg []byte, k idKey) bool {
	fields, err := looseObject(msg) // msg is not kept: no copy
	if err != nil {
		return false
	}
	if _, ok := fields["method"]; ok {
		return false
	}
	id, ok := fields["id"]
	if !ok || bytes.Equal(id, []byte("null")) {
		return false
	}
	key, ok := keyOf(id)
	return ok && key == k
}

// noteVersion keeps the revision the server's answer to the agent's
// initialize settled, for the headers of the session's requests.
func (h *httpSide) noteVersion(o *outgoing, msg []byte) {
	if o.method != "initialize" {
		return
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &r) == nil && r.Result.ProtocolVersion != "" {
		h.mu.Lock()
		h.version = r.Result.ProtocolVersion
		h.mu.Unlock()
	}
}

// headerValue encodes a value for an Mcp-Name header: as it is when it is
// plain visible ASCII (or spaces inside), else as =?base64?…?= (2026-07-28,
// basic/transports/streamable-http, "Value Encoding").
func headerValue(s string) string {
	plain := s != "" && s[0] != ' ' && s[len(s)-1] != ' ' &&
		!(len(s) >= 11 && s[:9] == "=?base64?" && s[len(s)-2:] == "?=")
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}
