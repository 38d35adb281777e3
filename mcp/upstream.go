package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Protocol revisions the guard speaks to a Streamable HTTP server.
const (
	// ProtocolSessions is the revision with sessions: an initialize
	// handshake, an Mcp-Session-Id the server mints, a GET stream for the
	// server's own messages, a DELETE to end the session.
	ProtocolSessions = "2025-11-25"
	// ProtocolStateless is the revision without sessions: every request
	// states its revision in _meta, carries Mcp-Method and Mcp-Name
	// headers, and is answered on a stream of its own, closing which
	// cancels it.
	ProtocolStateless = "2026-07-28"
)

// Upstream is a remote MCP server reached over Streamable HTTP
// (specification revisions 2025-11-25 and 2026-07-28, basic/transports).
type Upstream struct {
	// URL is the server's MCP endpoint, http or https.
	URL string
	// Header is sent with every request: the server's own credentials
	// (Authorization, an API key), never the ticket, which stays with the
	// guard. It must not set a header the transport sets itself.
	Header http.Header
	// Client sends the requests; nil means a client of its own without an
	// overall timeout (a call's stream lasts as long as the call) that
	// follows no redirect: a redirect would carry the server's credentials
	// (an API key in a header of any name) to another address.
	Client *http.Client
}

// transportHeaders are the headers the transport sets on each request, so
// Upstream.Header may not.
var transportHeaders = []string{
	"Accept", "Content-Type", "Content-Length", "Host", "Connection", "Transfer-Encoding",
	"Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id",
}

// Validate refuses an upstream the guard cannot use: a URL that is not an
// absolute http or https URL without user information, a header the
// transport sets itself, or a header name or value HTTP does not allow.
func (u *Upstream) Validate() error {
	pu, err := url.Parse(u.URL)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || pu.Fragment != "" {
		return errors.New("mcp: the upstream must be an absolute http or https URL")
	}
	if pu.User != nil {
		return errors.New("mcp: the upstream URL must not hold credentials: give them in a header file")
	}
	for name, values := range u.Header {
		canon := textproto.CanonicalMIMEHeaderKey(name)
		for _, t := range transportHeaders {
			if strings.EqualFold(canon, t) {
				return fmt.Errorf("mcp: upstream header %s is set by the transport", canon)
			}
		}
		if strings.HasPrefix(canon, "Mcp-Param-") {
			return fmt.Errorf("mcp: upstream header %s is set by the transport", canon)
		}
		if !validHeaderName(name) {
			return fmt.Errorf("mcp: upstream header name %q is not a valid HTTP field name", name)
		}
		for _, v := range values {
			if !validHeaderValue(v) {
				return fmt.Errorf("mcp: upstream header %s: the value holds a character HTTP does not allow", canon)
			}
		}
	}
	return nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// ServeUpstream proxies one MCP session between the agent
// (newline-delimited JSON-RPC on agentIn and agentOut, as for Serve) and a
// Streamable HTTP server, with every check Serve makes (see Session). It
// speaks the revision each request asks for: 2025-11-25 after an
// initialize asking for it (a session: its id on every request, a new
// session when the server answers 404, the GET stream, a DELETE at the
// end), and 2026-07-28 for a request whose _meta states it (no session,
// Mcp-Method and Mcp-Name headers, a stream per request, closed to cancel
// it). A request under any other revision, or under none before an
// initialize, is answered with an error and not sent.
//
// Messages the server sends on a stream are relayed as they arrive, so
// progress reaches the agent while a call runs. A stream that breaks
// before its answer, or that the guard closes, leaves the call's outcome
// unknown: it counts as spent, and the agent gets an error.
//
// ServeUpstream returns when the agent's input ended and every request
// was answered (or ShutdownGrace passed), when writing to the agent
// fails, or when ctx is done; then every stream still open is closed and
// the session deleted.
func (p *Proxy) ServeUpstream(ctx context.Context, agentIn io.Reader, agentOut io.Writer, up *Upstream) error {
	if err := up.Validate(); err != nil {
		return err
	}
	if p.state() == nil {
		return errNoOwnTicket
	}
	client := up.Client
	if client == nil {
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	hctx, cancel := context.WithCancel(context.Background())
	h := &httpSide{
		p: p, up: up, client: client, ctx: hctx, cancel: cancel,
		streams: map[idKey]*stream{},
		work:    make(chan *outgoing),
		params:  map[string][]paramHeader{},
		done:    make(chan error, 1),
	}
	defer h.end()
	return p.relay(ctx, agentIn, agentOut, h, h.agentEnded, func(t *stdio) <-chan error {
		h.t = t
		return h.done
	})
}

// httpSide is the server's side of one relay over Streamable HTTP.
type httpSide struct {
	p      *Proxy
	up     *Upstream
	client *http.Client
	t      *stdio
	ctx    context.Context // ended when the relay ends: every stream closes
	cancel context.CancelFunc

	mu       sync.Mutex
	version  string // the revision the initialize settled; "" before
	session  string // the server's Mcp-Session-Id; "" when none
	initMsg  []byte // the agent's initialize, replayed for a new session
	initDone []byte // the agent's notifications/initialized, likewise
	getting  bool   // the GET stream is open or opening
	reinits  int
	reinitMu sync.Mutex               // one new session at a time
	streams  map[idKey]*stream        // the agent's requests awaiting their answer
	params   map[string][]paramHeader // x-mcp-header annotations, by tool
	inflight sync.WaitGroup
	work     chan *outgoing // to a sender waiting for its next message

	done    chan error
	endOnce sync.Once
}

// agentEnded is called once the agent's input ended and every message
// before it was sent on: the relay ends once every request was answered,
// or ShutdownGrace later.
func (h *httpSide) agentEnded() {
	go func() {
		idle := make(chan struct{})
		go func() { h.inflight.Wait(); close(idle) }()
		select {
		case <-idle:
		case <-time.After(ShutdownGrace):
		case <-h.ctx.Done():
		}
		h.finish(nil)
	}()
}

// finish ends the relay with err.
func (h *httpSide) finish(err error) {
	select {
	case h.done <- err:
	default:
	}
}

// end closes every stream still open and deletes the session.
func (h *httpSide) end() {
	h.endOnce.Do(func() {
		h.cancel()
		h.mu.Lock()
		session, version := h.session, h.version
		h.mu.Unlock()
		if session == "" {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), KillGrace)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.up.URL, nil)
		if err != nil {
			return
		}
		h.headers(req, version, session)
		if resp, err := h.client.Do(req); err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, sniffBytes))
			resp.Body.Close()
		}
	})
}

// headers sets the headers every request carries: the upstream's own, and
// the revision and session when there are.
func (h *httpSide) headers(req *http.Request, version, session string) {
	for name, values := range h.up.Header {
		req.Header[textproto.CanonicalMIMEHeaderKey(name)] = values
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
}

// deliver passes one message of the server's through the policy to the
// agent.
func (h *httpSide) deliver(msg []byte) {
	if err := h.t.fromServer(msg, nil); err != nil {
		h.finish(err)
	}
}

// unanswered answers the agent's request id with an error when its answer
// will never come.
func (h *httpSide) unanswered(id []byte, reached bool, why string) {
	if id == nil {
		return
	}
	if err := h.t.fromTransport(h.t.s.Unanswered(id, reached, why)); err != nil {
		h.finish(err)
	}
}
