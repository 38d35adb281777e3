package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// lane is one relay of the listener: one Session of the call policy and
// one server, fed lines as stdio would feed them. Each request's id (and
// progress token) is replaced by a number of the lane's own before the
// policy sees it, so that requests of different clients sharing the lane
// never collide, and restored in what goes back.
type lane struct {
	l      *listener
	p      *Proxy       // the proxy whose policy the relay runs
	entry  *clientEntry // the client ticket's, with Listen.Clients
	sid    string       // the 2025-11-25 session id; "" for the 2026-07-28 lane
	in     *feed
	cancel context.CancelFunc
	done   chan struct{} // closed when the relay ended
	get    chan []byte   // the server's own messages, for the GET stream
	// getOpen is set while a GET stream reads get.
	getOpen atomic.Bool
	used    atomic.Int64 // when a request last came or ended (UnixNano)

	mu      sync.Mutex
	waiters map[int64]*waiter
	ids     map[idKey]int64          // a client's request id to the lane's, for its cancellation
	version string                   // the revision the session's initialize settled
	params  map[string][]paramHeader // x-mcp-header annotations, by tool, from tools/list answers
	partial []byte                   // the start of a line from the relay
}

// subscriptionMeta is the _meta key naming a 2026-07-28 subscription's
// notifications by its subscriptions/listen request's id
// (basic/patterns/subscriptions).
const subscriptionMeta = "io.modelcontextprotocol/subscriptionId"

// waiter is a client's request awaiting its answer.
type waiter struct {
	id         json.RawMessage // the client's id
	key        idKey
	token      json.RawMessage // the client's progress token; nil when none
	initialize bool
	toolsList  bool
	box        *mailbox // messages about the request, the answer last
}

// laneMsg is one message for a waiting client.
type laneMsg struct {
	data   []byte
	answer bool // the request's answer: nothing follows it
}

// mailbox holds the messages for one waiting request until its handler
// writes them: at most listenBacklog, the answer always among them
// (progress never takes the last place). It grows with what it holds,
// where a channel of that capacity cost every request 8 KiB.
type mailbox struct {
	mu    sync.Mutex
	queue []laneMsg
	ready chan struct{} // holds a token while the queue may not be empty
}

func newMailbox() *mailbox { return &mailbox{ready: make(chan struct{}, 1)} }

// put adds m, and reports false for progress dropped because only the
// answer's place is left.
func (b *mailbox) put(m laneMsg) bool {
	b.mu.Lock()
	if !m.answer && len(b.queue) >= listenBacklog-1 {
		b.mu.Unlock()
		return false
	}
	b.queue = append(b.queue, m)
	b.mu.Unlock()
	select {
	case b.ready <- struct{}{}:
	default:
	}
	return true
}

// take returns the messages put since the last take.
func (b *mailbox) take() []laneMsg {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.queue
	b.queue = nil
	return q
}

// startLane starts a relay, under a client ticket's proxy with e; the
// caller holds l.mu.
func (l *listener) startLane(sid string, e *clientEntry) *lane {
	in := newFeed()
	ctx, cancel := context.WithCancel(l.ctx)
	ln := &lane{l: l, p: l.p, entry: e, sid: sid, in: in, cancel: cancel, done: make(chan struct{}),
		get: make(chan []byte, listenBacklog), waiters: map[int64]*waiter{}, ids: map[idKey]int64{}}
	if e != nil {
		ln.p = e.p
		e.lanes++
	}
	ln.touch()
	go func() {
		err := l.back(ctx, ln.p, in, ln)
		if err != nil && ctx.Err() == nil {
			l.p.log.Printf("listen: a relay ended: %v", err)
		}
		in.close()
		cancel()
		close(ln.done)
		l.ended(ln)
	}()
	return ln
}

func (ln *lane) ended() bool {
	select {
	case <-ln.done:
		return true
	default:
		return false
	}
}

// end ends the lane's input: the relay answers what it was sent, then
// stops the server.
func (ln *lane) end() {
	ln.in.close()
}

func (ln *lane) touch() { ln.used.Store(time.Now().UnixNano()) }

// idleFor is how long the lane has had nothing to do: no answer pending,
// no GET stream open, no request since; 0 while it is busy.
func (ln *lane) idleFor() time.Duration {
	ln.mu.Lock()
	busy := len(ln.waiters) > 0
	ln.mu.Unlock()
	if busy || ln.getOpen.Load() {
		return 0
	}
	return time.Since(time.Unix(0, ln.used.Load()))
}

func (ln *lane) revision() string {
	ln.mu.Lock()
	defer ln.mu.Unlock()
	return ln.version
}

// send gives the relay one message as one line.
func (ln *lane) send(msg []byte) error {
	return ln.in.send(msg, ln.done)
}

// register gives a request the listener's next id and rewrites it (and
// its progress token) to that id; a tools/call's proof is kept for the
// policy under that id.
func (ln *lane) register(in *incoming, pres *presented) (*waiter, int64, []byte) {
	n := ln.l.nextID.Add(1)
	ln.mu.Lock()
	defer ln.mu.Unlock()
	w := &waiter{id: in.id, initialize: in.method == "initialize", toolsList: in.method == "tools/list",
		box: newMailbox()}
	w.key, _ = keyOf(in.id)
	num := json.RawMessage(strconv.FormatInt(n, 10))
	in.fields["id"] = num
	line := []byte(nil)
	if raw, ok := in.params["_meta"]; ok {
		if meta, err := memberObject(raw, true); err == nil {
			if tok, ok := meta["progressToken"]; ok {
				w.token = tok
				meta["progressToken"] = num
				in.params["_meta"] = marshal(meta)
				in.fields["params"] = marshal(in.params)
				line = marshal(in.fields)
			}
		}
	}
	if line == nil {
		line = withID(in.body, in.fields, num)
	}
	ln.waiters[n] = w
	ln.ids[w.key] = n
	if pres != nil && ln.p.client {
		ln.p.proofs.Store(laneKey(n), pres)
	}
	return w, n, line
}

// withID returns the message body (whose members are fields) with its id
// replaced by id: every other byte as it came when the body is one line
// with one id member, else the members encoded anew (a line of its own).
func withID(body []byte, fields map[string]json.RawMessage, id json.RawMessage) []byte {
	if !bytes.ContainsAny(body, "\r\n") {
		if out, ok := replaceMember(body, "id", id); ok {
			return out
		}
	}
	fields["id"] = id
	return marshal(fields)
}

// forgetWaiter drops a request whose client stopped waiting.
func (ln *lane) forgetWaiter(n int64) *waiter {
	ln.mu.Lock()
	defer ln.mu.Unlock()
	w := ln.waiters[n]
	delete(ln.waiters, n)
	if w != nil && ln.ids[w.key] == n {
		delete(ln.ids, w.key)
	}
	if ln.p.client {
		ln.p.proofs.Delete(laneKey(n))
	}
	return w
}

// laneKey is the policy's key of the listener's id n.
func laneKey(n int64) idKey {
	k, _ := keyOf(json.RawMessage(strconv.FormatInt(n, 10)))
	return k
}

// Write takes the relay's lines to the agent and routes each (io.Writer
// for the relay).
func (ln *lane) Write(b []byte) (int, error) {
	if len(ln.partial) == 0 && bytes.IndexByte(b, '\n') == len(b)-1 {
		// One whole line, as the relay writes them.
		ln.route(bytes.Clone(b[:len(b)-1]))
		return len(b), nil
	}
	ln.partial = append(ln.partial, b...)
	for {
		i := bytes.IndexByte(ln.partial, '\n')
		if i < 0 {
			break
		}
		ln.route(bytes.Clone(ln.partial[:i]))
		ln.partial = ln.partial[i+1:]
	}
	if len(ln.partial) == 0 {
		ln.partial = nil
	}
	return len(b), nil
}

// route sends one message of the relay's to the request it answers or
// concerns (its id, its progress token), else to the GET stream.
func (ln *lane) route(msg []byte) {
	fields, err := looseObject(msg)
	if err != nil {
		ln.l.p.log.Printf("listen: dropped a message for the agent that is not a JSON object")
		return
	}
	_, hasMethod := fields["method"]
	if !hasMethod {
		n, err := strconv.ParseInt(string(bytes.TrimSpace(fields["id"])), 10, 64)
		w := ln.forgetWaiter(n)
		if err != nil || w == nil {
			ln.l.p.log.Printf("listen: dropped an answer no client waits for")
			return
		}
		if w.initialize {
			ln.noteVersion(fields["result"])
		}
		if w.toolsList {
			ln.learnParams(fields["result"])
		}
		w.box.put(laneMsg{data: withID(msg, fields, w.id), answer: true})
		return
	}
	if w, ok := ln.concernOf(fields); ok {
		w.box.put(laneMsg{data: marshal(fields)}) // a client that does not read its stream loses progress
		return
	}
	select {
	case ln.get <- msg:
	default:
		ln.l.p.log.Printf("listen: dropped a message of the server's: no client reads the session's stream")
	}
}

// concernOf finds the request a notification concerns, and restores the
// client's value in fields: a progress notification's token (the
// request's progress token), or the subscription id in _meta of a
// 2026-07-28 subscription's notification (the subscriptions/listen
// request's id).
func (ln *lane) concernOf(fields map[string]json.RawMessage) (*waiter, bool) {
	params, err := memberObject(fields["params"], false)
	if err != nil {
		return nil, false
	}
	meta, _ := memberObject(params["_meta"], false)
	raw, member := params["progressToken"], "progressToken"
	if sub, ok := meta[subscriptionMeta]; ok {
		raw, member = sub, subscriptionMeta
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		return nil, false
	}
	ln.mu.Lock()
	w := ln.waiters[n]
	ln.mu.Unlock()
	switch {
	case w == nil:
		return nil, false
	case member == subscriptionMeta:
		meta[subscriptionMeta] = w.id
		params["_meta"] = marshal(meta)
	case w.token == nil:
		return nil, false
	default:
		params["progressToken"] = w.token
	}
	fields["params"] = marshal(params)
	return w, true
}

func (ln *lane) noteVersion(result json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) == nil {
		ln.mu.Lock()
		ln.version = r.ProtocolVersion
		ln.mu.Unlock()
	}
}

// serve sends a client's message into the lane and, for a request, writes
// what comes back for it.
func (ln *lane) serve(w http.ResponseWriter, r *http.Request, in *incoming, pres *presented) {
	ln.touch()
	defer ln.touch()
	if ln.sid != "" {
		w.Header().Set("Mcp-Session-Id", ln.sid)
	}
	if !in.isRequest() {
		if in.method == "notifications/cancelled" {
			ln.rewriteCancel(in)
		}
		if err := ln.send(marshal(in.fields)); err != nil {
			(&httpRefusal{status: http.StatusNotFound, code: codeInvalidRequest, msg: "the session ended"}).write(w, nil)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if _, err := agentID(in.id); err != nil {
		badRequest(codeInvalidRequest, "%v", err).write(w, nil)
		return
	}
	wt, n, line := ln.register(in, pres)
	if err := ln.send(line); err != nil {
		ln.forgetWaiter(n)
		(&httpRefusal{status: http.StatusNotFound, code: codeInvalidRequest, msg: "the session ended"}).write(w, in.id)
		return
	}
	ln.answer(w, r, in, n, wt)
}

// answer writes what comes back for a request: one JSON object when the
// answer is the first message (so a call answered at once costs one
// write, as a direct call does), else an SSE stream, opened by the first
// message the server sends while the request runs (progress, a request
// of its own), for a client that accepts text/event-stream (the
// transport lets the server choose either). A client that does not gets
// the answer alone.
func (ln *lane) answer(w http.ResponseWriter, r *http.Request, in *incoming, n int64, wt *waiter) {
	sse, streaming := acceptsSSE(r), false
	for {
		select {
		case <-wt.box.ready:
			for _, msg := range wt.box.take() {
				switch {
				case streaming:
					writeEvent(w, msg.data)
				case msg.answer:
					writeJSON(w, msg.data)
				case sse:
					startStream(w)
					streaming = true
					writeEvent(w, msg.data)
				}
				if msg.answer {
					return
				}
			}
		case <-r.Context().Done():
			ln.abandon(n, wt)
			return
		case <-ln.done:
			msg := errorResponse(in.id, codeInternalError, "mcp: the guard's relay to the server ended before the answer")
			if streaming {
				writeEvent(w, msg)
			} else {
				writeJSON(w, msg)
			}
			return
		}
	}
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(msg)))
	w.Write(msg)
}

// abandon forgets a request whose client went away. Under 2026-07-28
// closing the stream cancels the request, so the server is told.
func (ln *lane) abandon(n int64, wt *waiter) {
	if ln.forgetWaiter(n) == nil || ln.sid != "" {
		return
	}
	params := map[string]any{"requestId": n, "_meta": map[string]string{protocolVersionMeta: ProtocolStateless}}
	ln.send(marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}))
}

// rewriteCancel points a cancellation at the lane's id of the request.
func (ln *lane) rewriteCancel(in *incoming) {
	k, ok := keyOf(in.params["requestId"])
	if !ok {
		return
	}
	ln.mu.Lock()
	n, ok := ln.ids[k]
	ln.mu.Unlock()
	if !ok {
		return
	}
	in.params["requestId"] = json.RawMessage(strconv.FormatInt(n, 10))
	in.fields["params"] = marshal(in.params)
}

// stream is a 2025-11-25 session's GET stream: the server's own messages.
func (ln *lane) stream(w http.ResponseWriter, r *http.Request) {
	if !ln.getOpen.CompareAndSwap(false, true) {
		(&httpRefusal{status: http.StatusConflict, code: codeInvalidRequest, msg: "the session's stream is already open"}).write(w, nil)
		return
	}
	defer func() { ln.getOpen.Store(false); ln.touch() }()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Mcp-Session-Id", ln.sid)
	w.WriteHeader(http.StatusOK)
	flush(w)
	for {
		select {
		case msg := <-ln.get:
			writeEvent(w, msg)
		case <-r.Context().Done():
			return
		case <-ln.done:
			return
		}
	}
}

func writeEvent(w http.ResponseWriter, msg []byte) {
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
	flush(w)
}

func flush(w http.ResponseWriter) {
	http.NewResponseController(w).Flush()
}
