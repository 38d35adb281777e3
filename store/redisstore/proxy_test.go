package redisstore

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// proxy forwards TCP connections to a server and can hold traffic (a
// paused server) or drop the server's replies (a lost reply).
type proxy struct {
	l    net.Listener
	mode atomic.Int32 // one of forward, hold, drop
}

const (
	forward = iota
	hold
	drop
)

func startProxy(t *testing.T, target string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go p.pipe(s, c, false)
			go p.pipe(c, s, true)
		}
	}()
	return p
}

func (p *proxy) url() string { return "redis://" + p.l.Addr().String() }

// pipe copies src to dst chunk by chunk, holding each chunk while the
// mode is hold and discarding replies while it is drop.
func (p *proxy) pipe(dst, src net.Conn, replies bool) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		for p.mode.Load() == hold {
			time.Sleep(5 * time.Millisecond)
		}
		if replies && p.mode.Load() == drop {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// A paused server refuses by the caller's deadline; the retry with the
// same request id once it answers again charges once.
func TestPausedServerRefuses(t *testing.T) {
	p := startProxy(t, redisAddr(t))
	s := factory(p.url(), Options{})(t)(t)
	c := storetest.Chain("a", 1)
	a := storetest.Admission(c, storetest.Base(), storetest.Calls(c, 0, 5))
	p.mode.Store(hold)
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	_, err := s.Admit(ctx, a)
	if !errors.Is(err, guard.ErrStore) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("admit on a paused server: %v, want ErrStore and the deadline", err)
	}
	p.mode.Store(forward)
	if v, err := s.Admit(bg, a); err != nil || !v.Admitted {
		t.Fatalf("retry: %+v, %v", v, err)
	}
	wantSpent(t, s, a, 1)
}

// A reply lost after the server admitted: the retry with the same request
// id gets the first verdict (Repeated) and charges nothing again.
func TestLostReplyRetryChargesOnce(t *testing.T) {
	p := startProxy(t, redisAddr(t))
	s := factory(p.url(), Options{})(t)(t)
	c := storetest.Chain("a", 2)
	a := storetest.Admission(c, storetest.Base(), storetest.Calls(c, 0, 5), storetest.Calls(c, 1, 5))
	// An admission in another family first, so that the server holds the
	// script: the lost reply must be the verdict's, not a NOSCRIPT.
	other := storetest.Chain("b", 1)
	if _, err := s.Admit(bg, storetest.Admission(other, a.Now)); err != nil {
		t.Fatal(err)
	}
	p.mode.Store(drop)
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	if _, err := s.Admit(ctx, a); !errors.Is(err, guard.ErrStore) {
		t.Fatalf("admit with its reply lost: %v, want ErrStore", err)
	}
	p.mode.Store(forward)
	v, err := s.Admit(bg, a)
	if err != nil || !v.Admitted || !v.Repeated {
		t.Fatalf("retry: %+v, %v; want the first verdict, repeated", v, err)
	}
	wantSpent(t, s, a, 1)
}

func wantSpent(t *testing.T, s guard.Store, a guard.Admission, n uint64) {
	t.Helper()
	u, err := s.Spent(bg, a.Blocks[0], a.Budgets)
	if err != nil {
		t.Fatal(err)
	}
	for i := range u {
		if u[i].Spent != n {
			t.Fatalf("budget %d: spent %d, want %d", i, u[i].Spent, n)
		}
	}
}
