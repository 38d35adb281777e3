package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpophttp"
)

// Listen configures the guard's Streamable HTTP side toward agents
// ([Proxy.ListenHandler]). Exactly one of Command and Upstream is the
// server.
type Listen struct {
	// Addr is the address the handler is served on (HOST:PORT, as the
	// listener bound it): Origin and Host are checked against it.
	Addr string
	// Origins are further origins (scheme://host[:port]) a browser-based
	// client may send in Origin.
	Origins []string
	// Command makes the stdio server's command, a new one for each
	// session: each 2025-11-25 session and the one lane of 2026-07-28
	// requests runs its own server process.
	Command func() *exec.Cmd
	// Upstream is the Streamable HTTP server, spoken to as ServeUpstream
	// does, one relay per session.
	Upstream *Upstream
	// Clients, for a proxy with Config.ClientTickets, reads the ticket
	// each request presents (Authorization: DPoP and a proof, RFC 9449;
	// or Bearer for an unbound ticket where it allows), issues nonces and
	// answers refusals with its challenges. A request carrying a
	// tools/call is decided by the call policy under that ticket with that
	// proof, in one admission (proof, replay, budgets, receipt); any other
	// request needs the ticket valid and, when bound, the proof valid and
	// never used before. Each client ticket has its own sessions and its
	// own relay of 2026-07-28 requests; budgets are shared through the
	// store as always. Its Options.Store should be Config.Store.
	Clients *dpophttp.Middleware
}

// listener serves agents over Streamable HTTP (basic/transports of
// 2025-11-25 and 2026-07-28). Each 2025-11-25 session (an initialize
// without Mcp-Session-Id starts one) is one relay: one Session of the
// call policy and one server. Requests of 2026-07-28 (their revision in
// _meta, no session) share one relay. Every relay is the one stdio uses:
// the listener only turns HTTP messages into lines for it and routes the
// lines it answers with back to the request each answers, so every call
// gets exactly the checks it gets over stdio.
type listener struct {
	p      *Proxy
	cfg    Listen
	orig   *origins
	ctx    context.Context // ended by Close: every relay ends
	cancel context.CancelFunc
	nextID atomic.Int64 // the ids the listener gives requests, unique across its relays
	// idle is ListenIdle, and sweep how often sessions are looked at
	// (shorter in tests); the sweeper starts with the first session.
	idle, sweep time.Duration
	sweeper     sync.Once

	mu        sync.Mutex
	sessions  map[string]*lane
	stateless *lane
	clients   map[string]*clientEntry // by ticket text, with Listen.Clients
}

// ListenHandler returns the Streamable HTTP endpoint of the guard: every
// request is checked in this order, and refused at the first failure:
//
//  1. Origin, when present, must be the listener's own origin or one of
//     Listen.Origins, and, on a loopback address, Host must name the
//     loopback (DNS rebinding): 403.
//  2. POST, GET (a 2025-11-25 session's stream) or DELETE (its end);
//     anything else 405.
//  3. A POST body is one JSON-RPC message in application/json, at most
//     Config.MaxMessageBytes: 415, 413, 400 (-32700) otherwise.
//  4. A message stating 2026-07-28 in _meta, or sent with that
//     MCP-Protocol-Version, must carry MCP-Protocol-Version, Mcp-Method
//     and Mcp-Name equal to its body's: 400 with -32020 (HeaderMismatch)
//     before anything else is done with it; a revision the guard does not
//     speak statelessly gets 400 with -32022. (A tools/call's Mcp-Param
//     headers, which need the tool's annotations from a tools/list answer
//     the relay passed on, are checked likewise once its relay is found,
//     before the call policy sees it.)
//  5. Otherwise the message belongs to a 2025-11-25 session: an
//     initialize without Mcp-Session-Id starts one (the answer carries
//     its id); anything else needs a known Mcp-Session-Id (400 without,
//     404 for an unknown or ended one) and an MCP-Protocol-Version, when
//     sent, equal to the session's revision (400).
//
// The message then goes through the call policy as over stdio, and a
// request's answer comes back as one JSON object when nothing came
// before it; once the server sends something while the request runs
// (progress, a request of its own), on an SSE stream opened then, for a
// client that accepts text/event-stream (a client that does not gets the
// answer alone). The transport lets a server answer either way. Close
// ends every session.
func (p *Proxy) ListenHandler(cfg Listen) (http.Handler, func(), error) {
	if (cfg.Command == nil) == (cfg.Upstream == nil) {
		return nil, nil, errors.New("mcp: listen needs a server: a command or an upstream, not both")
	}
	if cfg.Upstream != nil {
		if err := cfg.Upstream.Validate(); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case p.cfg.ClientTickets && cfg.Clients == nil:
		return nil, nil, errors.New("mcp: a proxy with client tickets needs Listen.Clients to read them")
	case !p.cfg.ClientTickets && cfg.Clients != nil:
		return nil, nil, errors.New("mcp: Listen.Clients needs a proxy with Config.ClientTickets: the ticket is either the guard's or each client's")
	}
	o, err := newOrigins(cfg.Addr, cfg.Origins)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{p: p, cfg: cfg, orig: o, ctx: ctx, cancel: cancel, sessions: map[string]*lane{}, clients: map[string]*clientEntry{},
		idle: ListenIdle, sweep: ListenIdle / 10}
	return l, l.close, nil
}

// close ends every relay.
func (l *listener) close() {
	l.cancel()
	l.mu.Lock()
	lanes := make([]*lane, 0, len(l.sessions)+1)
	for _, ln := range l.sessions {
		lanes = append(lanes, ln)
	}
	if l.stateless != nil {
		lanes = append(lanes, l.stateless)
	}
	for _, e := range l.clients {
		if e.stateless != nil {
			lanes = append(lanes, e.stateless)
		}
	}
	l.mu.Unlock()
	for _, ln := range lanes {
		<-ln.done
	}
}

// back runs one relay of p between the lane's lines and the server.
func (l *listener) back(ctx context.Context, p *Proxy, in io.Reader, out io.Writer) error {
	if l.cfg.Upstream != nil {
		return p.ServeUpstream(ctx, in, out, l.cfg.Upstream)
	}
	_, err := p.Run(ctx, in, out, l.cfg.Command())
	return err
}

// client is who sent a request: with Listen.Clients, the entry of the
// ticket it presented, its proof and its discharges; the zero value
// otherwise.
type client struct {
	entry      *clientEntry
	holder     *caveat.HolderProof
	discharges []string
}

// presented is what the request carrying a tools/call presented beside
// the client's ticket, kept for the call policy under the call's id: the
// proof (nil for a Bearer ticket) and the Ticket-Discharge headers.
type presented struct {
	holder     *caveat.HolderProof
	discharges []string
}

// present reads the ticket a request presents, with Listen.Clients; it
// answers a refusal itself and reports false.
func (l *listener) present(w http.ResponseWriter, r *http.Request) (client, bool) {
	m := l.cfg.Clients
	if m == nil {
		return client{}, true
	}
	pr, e := m.Present(w, r)
	if e == nil {
		var c client
		if c.entry, e = l.clientProxy(pr.Ticket); e == nil {
			c.holder, c.discharges = pr.Holder, pr.Discharges
			return c, true
		}
	}
	l.p.log.Printf("listen: refused a request from %s: %s", r.RemoteAddr, e.Description)
	m.Refuse(w, r, e)
	return client{}, false
}

// authenticate checks a request that carries no tools/call, with
// Listen.Clients (see Proxy.authenticate); it answers a refusal itself and
// reports false.
func (l *listener) authenticate(w http.ResponseWriter, r *http.Request, c client) bool {
	if c.entry == nil {
		return true
	}
	e := c.entry.p.authenticate(r.Context(), c.holder, l.p.cfg.Now())
	if e == nil {
		return true
	}
	l.p.log.Printf("listen: refused a request from %s: %s", r.RemoteAddr, e.Description)
	l.cfg.Clients.Refuse(w, r, e)
	return false
}

func (l *listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if why := l.orig.check(r); why != "" {
		l.p.log.Printf("listen: refused a request from %s: %s", r.RemoteAddr, why)
		(&httpRefusal{status: http.StatusForbidden, code: codeInvalidRequest, msg: why}).write(w, nil)
		return
	}
	switch r.Method {
	case http.MethodPost:
		l.post(w, r)
	case http.MethodGet:
		l.get(w, r)
	case http.MethodDelete:
		l.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		(&httpRefusal{status: http.StatusMethodNotAllowed, code: codeInvalidRequest, msg: "method not allowed"}).write(w, nil)
	}
}

// incoming is what the listener reads of a message from a client.
type incoming struct {
	body        []byte // the message as it came
	fields      map[string]json.RawMessage
	params      map[string]json.RawMessage
	method      string
	id          json.RawMessage // a request's id; nil otherwise
	metaVersion string          // params._meta's protocol version
	initVersion string          // an initialize's params.protocolVersion
	name        *string         // params.name, or params.uri of resources/read
}

func (in *incoming) isRequest() bool { return in.method != "" && in.id != nil }

// readIncoming reads one message: a JSON object whose members and params'
// members are unique under case folding (what the policy reads is what
// the server reads).
func readIncoming(body []byte) (*incoming, *httpRefusal) {
	fields, err := strictObject(body)
	if err != nil {
		return nil, badRequest(codeParseError, "the body must be one JSON-RPC message: a JSON object without duplicate names (batches are not accepted)")
	}
	in := &incoming{body: body, fields: fields}
	if raw, ok := fields["method"]; ok && !decodeString(raw, &in.method) {
		return nil, badRequest(codeInvalidRequest, "method must be a string")
	}
	if raw, ok := fields["id"]; ok && in.method != "" {
		in.id = raw
	}
	if raw, ok := fields["params"]; ok && in.method != "" {
		if in.params, err = memberObject(raw, true); err != nil {
			return nil, badRequest(codeInvalidParams, "params must be a JSON object without duplicate names")
		}
	}
	if raw, ok := in.params["_meta"]; ok {
		meta, err := memberObject(raw, true)
		if err != nil {
			return nil, badRequest(codeInvalidParams, "params._meta must be a JSON object without duplicate names")
		}
		if raw, ok := meta[protocolVersionMeta]; ok && !decodeString(raw, &in.metaVersion) {
			return nil, badRequest(codeInvalidParams, "the _meta protocol version must be a string")
		}
	}
	if in.method == "initialize" {
		decodeString(in.params["protocolVersion"], &in.initVersion)
	}
	field := ""
	switch in.method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	}
	var name string
	if raw, ok := in.params[field]; ok && field != "" && decodeString(raw, &name) {
		in.name = &name
	}
	return in, nil
}

// post takes one message from a client to its relay.
func (l *listener) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		(&httpRefusal{status: http.StatusUnsupportedMediaType, code: codeInvalidRequest, msg: "the body must be application/json"}).write(w, nil)
		return
	}
	max := int64(l.p.cfg.MaxMessageBytes)
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	switch {
	case err != nil:
		badRequest(codeParseError, "the body could not be read").write(w, nil)
		return
	case int64(len(body)) > max:
		(&httpRefusal{status: http.StatusRequestEntityTooLarge, code: codeInvalidRequest, msg: "the message is too long"}).write(w, nil)
		return
	}
	in, bad := readIncoming(body)
	if bad == nil {
		bad = checkRevision(r, in)
	}
	if bad != nil {
		l.p.log.Printf("listen: refused a message from %s: %s", r.RemoteAddr, bad.msg)
		bad.write(w, in.idOrNil())
		return
	}
	c, ok := l.present(w, r)
	if !ok {
		return
	}
	call := in.isRequest() && in.method == "tools/call"
	if !call && !l.authenticate(w, r, c) {
		return
	}
	ln, bad := l.laneOf(r, in, c)
	if bad == nil {
		if why := ln.checkParams(r.Header, in); why != "" {
			bad = badRequest(codeHeaderMismatch, "header mismatch: %s", why)
		}
	}
	if bad != nil {
		l.p.log.Printf("listen: refused a message from %s: %s", r.RemoteAddr, bad.msg)
		bad.write(w, in.id)
		return
	}
	var pres *presented
	if call && c.entry != nil {
		pres = &presented{holder: c.holder, discharges: c.discharges}
	}
	ln.serve(w, r, in, pres)
}

func (in *incoming) idOrNil() json.RawMessage {
	if in == nil {
		return nil
	}
	return in.id
}

// checkRevision checks a message's revision headers against its body
// (step 4 of ListenHandler), before anything else is done with it.
func checkRevision(r *http.Request, in *incoming) *httpRefusal {
	hv := r.Header.Get("Mcp-Protocol-Version")
	if in.metaVersion == "" && hv < ProtocolStateless {
		if hv != "" && !contains(knownVersions, hv) {
			return badRequest(codeInvalidRequest, "unsupported MCP-Protocol-Version %q", hv)
		}
		return nil
	}
	if why := statelessHeaders(r.Header, in); why != "" {
		return badRequest(codeHeaderMismatch, "header mismatch: %s", why)
	}
	if in.metaVersion != ProtocolStateless {
		e := badRequest(codeUnsupportedVersion, "unsupported protocol version %q", in.metaVersion)
		e.data = map[string]any{"supported": []string{ProtocolStateless}, "requested": in.metaVersion}
		return e
	}
	return nil
}

// laneOf finds a checked message's relay (step 5 of ListenHandler).
func (l *listener) laneOf(r *http.Request, in *incoming, c client) (*lane, *httpRefusal) {
	hv := r.Header.Get("Mcp-Protocol-Version")
	if in.metaVersion != "" {
		return l.statelessLane(c)
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		if in.method != "initialize" {
			return nil, badRequest(codeInvalidRequest, "no Mcp-Session-Id: start a session with initialize, or state protocol %s in _meta", ProtocolStateless)
		}
		return l.newSession(c)
	}
	ln, bad := l.session(sid, c)
	if bad != nil {
		return nil, bad
	}
	if v := ln.revision(); hv != "" && v != "" && hv != v {
		return nil, badRequest(codeInvalidRequest, "MCP-Protocol-Version %q is not the session's %q", hv, v)
	}
	return ln, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// session returns a 2025-11-25 session's relay: 404 for an unknown one,
// 403 for one a client under another ticket started.
func (l *listener) session(sid string, c client) (*lane, *httpRefusal) {
	l.mu.Lock()
	ln := l.sessions[sid]
	l.mu.Unlock()
	switch {
	case ln == nil:
		return nil, &httpRefusal{status: http.StatusNotFound, code: codeInvalidRequest, msg: "no such session: start a new one with initialize"}
	case ln.entry != c.entry:
		return nil, &httpRefusal{status: http.StatusForbidden, code: codeInvalidRequest, msg: "the session was started under another ticket"}
	}
	return ln, nil
}

// newSession starts a 2025-11-25 session's relay.
func (l *listener) newSession(c client) (*lane, *httpRefusal) {
	var b [16]byte
	rand.Read(b[:])
	sid := hex.EncodeToString(b[:])
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.sessions) >= maxListenSessions {
		return nil, &httpRefusal{status: http.StatusServiceUnavailable, code: codeInternalError,
			msg: "too many sessions: end one (DELETE) first"}
	}
	ln := l.startLane(sid, c.entry)
	l.sessions[sid] = ln
	l.sweeper.Do(func() { go l.endIdle() })
	return ln, nil
}

// endIdle ends, every l.sweep, the sessions idle for l.idle or longer.
func (l *listener) endIdle() {
	t := time.NewTicker(l.sweep)
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		var idle []*lane
		l.mu.Lock()
		for sid, ln := range l.sessions {
			if ln.idleFor() >= l.idle {
				delete(l.sessions, sid)
				idle = append(idle, ln)
			}
		}
		l.mu.Unlock()
		for _, ln := range idle {
			l.p.log.Printf("listen: ended a session idle for %v", l.idle)
			ln.end()
		}
	}
}

// statelessLane returns the relay of 2026-07-28 requests, started anew
// when the last one ended.
func (l *listener) statelessLane(c client) (*lane, *httpRefusal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at := &l.stateless
	if c.entry != nil {
		at = &c.entry.stateless
	}
	if *at == nil || (*at).ended() {
		*at = l.startLane("", c.entry)
	}
	return *at, nil
}

// get opens a 2025-11-25 session's stream of the server's own messages.
func (l *listener) get(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" || r.Header.Get("Mcp-Protocol-Version") >= ProtocolStateless {
		w.Header().Set("Allow", "POST, DELETE")
		(&httpRefusal{status: http.StatusMethodNotAllowed, code: codeInvalidRequest, msg: "GET needs a 2025-11-25 session"}).write(w, nil)
		return
	}
	c, ok := l.present(w, r)
	if !ok || !l.authenticate(w, r, c) {
		return
	}
	ln, bad := l.session(sid, c)
	if bad != nil {
		bad.write(w, nil)
		return
	}
	ln.stream(w, r)
}

// delete ends a 2025-11-25 session.
func (l *listener) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	c, ok := l.present(w, r)
	if !ok || !l.authenticate(w, r, c) {
		return
	}
	ln, bad := l.session(sid, c)
	if bad != nil {
		bad.write(w, nil)
		return
	}
	l.forget(ln)
	ln.end()
	w.WriteHeader(http.StatusNoContent)
}

// forget drops a session that ends.
func (l *listener) forget(ln *lane) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ln.sid != "" && l.sessions[ln.sid] == ln {
		delete(l.sessions, ln.sid)
	}
}

// ended counts a relay out of its client ticket's.
func (l *listener) ended(ln *lane) {
	l.forget(ln)
	if ln.entry != nil {
		l.mu.Lock()
		ln.entry.lanes--
		l.mu.Unlock()
	}
}

// acceptsSSE reports whether the client takes an SSE stream as an answer.
func acceptsSSE(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			if mt == "text/event-stream" || mt == "*/*" {
				return true
			}
		}
	}
	return false
}
