package mcp

import (
	"context"
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
	ended := func() {
		serverIn.Close()
		if agentDone != nil {
			agentDone()
		}
	}
	return p.relay(ctx, agentIn, agentOut, &writer{w: serverIn}, ended, func(t *stdio) <-chan error {
		down := make(chan error, 1)
		go func() { down <- t.pump(serverOut, t.fromServer) }()
		return down
	})
}

// serverSide is where a relay sends messages for the server: lines on a
// stream, or requests over HTTP.
type serverSide interface {
	line(msg []byte) error
}

// relay runs one Session between the agent's newline-delimited streams and
// server. agentEnded is called once every message the agent sent before
// its input ended was sent on; start starts reading the server's side,
// and its channel gives the end of the relay (nil when the server's side
// ended).
func (p *Proxy) relay(ctx context.Context, agentIn io.Reader, agentOut io.Writer, server serverSide, agentEnded func(), start func(*stdio) <-chan error) error {
	if p.state() == nil {
		return errNoOwnTicket
	}
	t := &stdio{
		s:      p.NewSession(),
		max:    p.cfg.MaxMessageBytes,
		agent:  &writer{w: agentOut},
		server: server,
		calls:  make(chan *Call, maxQueuedCalls+1),
		done:   make(chan struct{}),
		failed: make(chan error, 1),
	}
	defer func() {
		close(t.done)
		t.s.End()
	}()
	if c, ok := server.(interface{ cancels(idKey) bool }); ok {
		t.s.cancels = c.cancels
	}
	down := start(t)
	go t.runCalls(agentEnded)
	go func() {
		if f, ok := agentIn.(*feed); ok {
			f.attach(t.fromAgent)
			select {
			case <-f.closed:
			case <-t.done:
			}
		} else {
			t.pump(agentIn, t.fromAgent)
		}
		t.s.AgentEnded()
		// The end of the agent's input is queued behind its calls, so that
		// every call it sent reaches the server before the server's input
		// is closed.
		select {
		case t.calls <- nil:
		case <-t.done:
		}
	}()
	select {
	case err := <-down:
		return err
	case err := <-t.failed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stdio carries one Session over newline-delimited JSON-RPC streams: it
// splits lines, hands them to the policy, writes what the policy says, and
// admits the calls in order on a worker of their own.
type stdio struct {
	s      *Session
	max    int
	agent  *writer
	server serverSide
	downMu sync.Mutex    // one message from the server at a time
	calls  chan *Call    // tools/call requests waiting for Admit, in order; nil ends
	done   chan struct{} // closed when Serve returns
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

// send writes a Step's messages, the server's first, and queues its call.
func (t *stdio) send(st Step) error {
	for _, b := range st.Server {
		if err := t.server.line(b); err != nil {
			return err
		}
	}
	for _, b := range st.Agent {
		if err := t.agent.line(b); err != nil {
			return err
		}
	}
	if st.Call != nil {
		t.calls <- st.Call // never blocks: the policy bounds the queued calls below its capacity
	}
	return nil
}

// pump handles every line of r until it ends (nil) or handle fails. long
// is the top level of a line too long to keep, nil for any other line.
func (t *stdio) pump(r io.Reader, handle func(line []byte, long *topScan) error) error {
	lr := newLineReader(r, t.max)
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

func (t *stdio) fromAgent(line []byte, long *topScan) error {
	if long != nil {
		return t.send(t.s.tooLong(long, "agent"))
	}
	return t.send(t.s.FromAgent(line))
}

func (t *stdio) fromServer(line []byte, long *topScan) error {
	t.downMu.Lock()
	defer t.downMu.Unlock()
	if long != nil {
		return t.send(t.s.tooLong(long, "server"))
	}
	return t.send(t.s.FromServer(line))
}

// fromTransport sends what the transport decided about a message of the
// server's on its own (a lost answer), in turn with the server's messages.
func (t *stdio) fromTransport(st Step) error {
	t.downMu.Lock()
	defer t.downMu.Unlock()
	return t.send(st)
}

// runCalls admits the queued calls in the order they came, until the
// session ends or the end of the agent's input (nil) comes through the
// queue; then it calls agentEnded.
func (t *stdio) runCalls(agentEnded func()) {
	for {
		select {
		case <-t.done:
			return
		case c := <-t.calls:
			if c == nil {
				agentEnded()
				return
			}
			st := t.s.Admit(c)
			for _, b := range st.Server {
				if err := t.server.line(b); err != nil {
					t.s.Unsent(c, err)
				}
			}
			for _, b := range st.Agent {
				if err := t.agent.line(b); err != nil {
					select {
					case t.failed <- err:
					default:
					}
					return
				}
			}
		}
	}
}
