package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestPerCallRefusals: the proxy verifies the ticket's chain once, yet
// every check that depends on the call or on the time still refuses the
// call it concerns, mid-session, and the server never sees that call.
func TestPerCallRefusals(t *testing.T) {
	hk, jkt := holderKey(t, "mcp holder")
	for _, tc := range []struct {
		name    string
		caveats []string
		holder  *key.Holder
		calls   int                                    // allowed before the change
		change  func(t *testing.T, s *setup, c *clock) // between the allowed calls and the refused one
		want    string
	}{
		{name: "revoked mid-session", caveats: []string{"tools=read_file"}, calls: 2,
			change: func(t *testing.T, s *setup, _ *clock) {
				g, err := guard.New(guard.Config{Keys: s.keys, Store: s.store})
				if err != nil {
					t.Fatal(err)
				}
				if err := g.Revoke(context.Background(), s.p.state().ticket, t0); err != nil {
					t.Fatal(err)
				}
			}, want: "block 0 revoked"},
		{name: "expiry reached mid-session", caveats: []string{"until=10m"}, calls: 2,
			change: func(_ *testing.T, _ *setup, c *clock) { c.add(10 * time.Minute) },
			want:   "block 0 caveat until: expired"},
		{name: "not yet valid", caveats: []string{"nbf=10m"}, calls: 0,
			want: "block 0 caveat nbf"},
		{name: "budget exhausted", caveats: []string{"calls=3"}, calls: 3,
			want: "block 0 caveat calls: budget of 3 calls is spent"},
		// A bound ticket: the proxy holds its key (no proof per call), and
		// every per-call check still applies.
		{name: "bound budget exhausted", caveats: []string{"holder=" + jkt, "calls=2"}, holder: hk, calls: 2,
			want: "block 0 caveat calls: budget of 2 calls is spent"},
		{name: "bound expiry reached", caveats: []string{"holder=" + jkt, "until=10m"}, holder: hk, calls: 1,
			change: func(_ *testing.T, _ *setup, c *clock) { c.add(11 * time.Minute) },
			want:   "block 0 caveat until: expired"},
		{name: "path outside", caveats: []string{"tools=read_file"}, calls: 1,
			change: func(_ *testing.T, s *setup, _ *clock) { s.dir = s.out },
			want:   "block 0 caveat paths"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{}
			store := guard.NewMemoryStore()
			s := start(t, options{version: "2025-06-18", caveats: tc.caveats, now: c.now, edit: func(cfg *Config, s *setup) {
				cfg.Store, cfg.Holder = store, tc.holder
				s.keys, s.store = cfg.Keys, store
			}})
			f := filepath.Join(s.dir, "a")
			if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(s.out, "a"), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			for i := range tc.calls {
				if txt, isErr := s.call(t, "read_file", map[string]any{"path": f}); isErr {
					t.Fatalf("call %d refused: %s", i, txt)
				}
			}
			if tc.change != nil {
				tc.change(t, s, c)
			}
			seen := len(s.rec.seen())
			txt, isErr := s.call(t, "read_file", map[string]any{"path": filepath.Join(s.dir, "a")})
			if !isErr || !strings.HasPrefix(txt, RefusalPrefix) || !strings.Contains(txt, tc.want) {
				t.Fatalf("got %q (isError %v), want a refusal with %q", txt, isErr, tc.want)
			}
			if len(s.rec.seen()) != seen {
				t.Fatal("the server saw the refused call")
			}
		})
	}
}

// clock is a test clock at t0 plus an offset that the test moves.
type clock struct{ off atomic.Int64 }

func (c *clock) now() time.Time      { return t0.Add(time.Duration(c.off.Load())) }
func (c *clock) add(d time.Duration) { c.off.Add(int64(d)) }

// TestTamperedTicketRefusedAtStart: the chain is checked when the ticket is
// prepared, at New and at SetTicket; a ticket whose signature was changed
// never starts and never replaces the enforced ticket.
func TestTamperedTicketRefusedAtStart(t *testing.T) {
	sk, keys := rootKey(t)
	good := attenuate(t, mint(t, sk, "tools=read_file"), "tools=read_file")
	data := good.Encode()
	var bad *token.Ticket
	for i := len(data) - 1; i >= 0 && bad == nil; i-- { // the last signature's bytes
		d := append([]byte(nil), data...)
		d[i] ^= 1
		if tk, err := token.Decode(d); err == nil {
			bad = tk
		}
	}
	if bad == nil {
		t.Fatal("no tampered ticket decodes")
	}
	wantChain := func(err error) {
		t.Helper()
		var se *StartError
		if !errors.As(err, &se) || len(se.Refusals) != 1 || se.Refusals[0].Check != verify.CheckChain {
			t.Fatalf("got %v, want a chain refusal", err)
		}
	}
	_, err := New(Config{Ticket: bad, Keys: keys, Now: fixedNow, Log: &syncBuffer{}})
	wantChain(err)
	p, err := New(Config{Ticket: good, Keys: keys, Now: fixedNow, Log: &syncBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	wantChain(p.SetTicket(bad))
	if p.state().ticket != good {
		t.Fatal("a tampered ticket replaced the enforced one")
	}
}
