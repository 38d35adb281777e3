package dpophttp

import (
	"errors"
	"sync"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

// prepared is a ticket text whose own checks (key, chain, narrowing,
// rebinding) the guard ran once ([guard.Guard.PrepareTicket]): a client
// presents one ticket on many requests, and each request then runs only
// its own checks (revocation, policy, caveats, proof), deciding exactly as
// guard.Verify would.
type prepared struct {
	t     *token.Ticket
	pt    *guard.PreparedTicket
	bound bool
}

// preparedCache keeps prepared tickets by text, at most
// MaxPreparedBytes of text; when full it starts over.
type preparedCache struct {
	mu    sync.RWMutex
	m     map[string]*prepared
	bytes int
	limit int // MaxPreparedBytes; smaller in tests
}

var errNotCanonical = errors.New("dpophttp: the ticket is not in its canonical text")

// prepare returns the prepared ticket of text; an error for a text that
// is not a ticket's one canonical text (ath is the hash of the text as
// sent, so it must be the text the ticket verifies as).
func (m *Middleware) prepare(text string) (*prepared, error) {
	c := &m.cache
	c.mu.RLock()
	p := c.m[text]
	c.mu.RUnlock()
	if p != nil {
		return p, nil
	}
	t, err := token.Parse(text)
	if err != nil {
		return nil, err
	}
	if t.String() != text {
		return nil, errNotCanonical
	}
	pt, err := m.guard.PrepareTicket(t)
	if err != nil {
		return nil, err
	}
	p = &prepared{t: t, pt: pt, bound: isBound(t)}
	if len(text) > c.limit/16 {
		return p, nil // a large ticket is not kept
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(text) > c.limit {
		c.m, c.bytes = map[string]*prepared{}, 0
	}
	if _, ok := c.m[text]; !ok {
		c.m[text] = p
		c.bytes += len(text)
	}
	return p, nil
}
