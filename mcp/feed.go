package mcp

import (
	"io"
	"sync"
)

// feed is an agent side that hands the relay whole messages itself, one at
// a time, instead of being read as lines: the listener's lanes, whose
// messages arrive whole in HTTP bodies already bounded by
// MaxMessageBytes. Each message is handled on the sender's goroutine, so
// a call reaches the policy without passing through a pipe and a reader
// of its own.
type feed struct {
	mu     sync.Mutex
	handle func(line []byte, long *topScan) error // the relay's, once attached
	ready  chan struct{}                          // closed by attach
	closed chan struct{}                          // closed by close: the agent's input ended
	ended  bool                                   // no message is taken any more
}

func newFeed() *feed {
	return &feed{ready: make(chan struct{}), closed: make(chan struct{})}
}

// Read is never called by the relay (it attaches instead); it reports the
// end of input so that a feed given to anything else reads as empty.
func (f *feed) Read([]byte) (int, error) { return 0, io.EOF }

// attach is called by the relay with its handler of the agent's messages.
func (f *feed) attach(handle func(line []byte, long *topScan) error) {
	f.mu.Lock()
	f.handle = handle
	f.mu.Unlock()
	close(f.ready)
}

// send hands one message to the relay; it fails once the feed was closed
// or the relay could not pass a message on (then the feed is closed).
func (f *feed) send(msg []byte, relayDone <-chan struct{}) error {
	select {
	case <-f.ready:
	case <-f.closed:
	case <-relayDone:
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended || f.handle == nil {
		return io.ErrClosedPipe
	}
	if err := f.handle(msg, nil); err != nil {
		f.closeLocked()
		return err
	}
	return nil
}

// close ends the agent's input: the relay answers what it was sent.
func (f *feed) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closeLocked()
}

func (f *feed) closeLocked() {
	if !f.ended {
		f.ended = true
		close(f.closed)
	}
}
