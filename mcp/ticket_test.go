package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestStartError: a ticket that can never allow a call through this proxy
// does not start, with a *StartError that says why; one that can, or
// that only is not valid yet, starts.
func TestStartError(t *testing.T) {
	sk, keys := rootKey(t)
	otherID, err := fixedkey.Signing(key.Ed25519, "other", "another key id")
	if err != nil {
		t.Fatal(err)
	}
	revokedTicket := mint(t, sk, "tools=read_file")
	last, _ := revokedTicket.UnverifiedLastID()
	at := func(d time.Duration) func() time.Time { return func() time.Time { return t0.Add(d) } }
	for _, tc := range []struct {
		name    string
		ticket  *token.Ticket
		edit    func(*Config)
		want    string   // "" starts; else the error holds it
		servers []string // StartError.Servers
	}{
		{name: "no tools caveat", ticket: mint(t, sk)},
		{name: "unqualified, no server name", ticket: mint(t, sk, "tools=read_file")},
		{name: "unqualified, server name", ticket: mint(t, sk, "tools=read_file"), edit: server("fs")},
		{name: "own server", ticket: mint(t, sk, "tools=fs/read_file"), edit: server("fs")},
		{name: "own and other server", ticket: mint(t, sk, "tools=fs/read_file,git/log"), edit: server("fs")},
		{name: "other servers", ticket: mint(t, sk, "tools=git/log,web/fetch"), edit: server("fs"),
			want: `block 0 caveat tools: no tool of server "fs" is admitted, only tools of git, web`, servers: []string{"git", "web"}},
		{name: "qualified, no server name", ticket: mint(t, sk, "tools=fs/read_file,git/log,git/diff"),
			want: "block 0 caveat tools: every tool it admits is qualified by a server name (fs, git) and the proxy has no server name", servers: []string{"fs", "git"}},
		{name: "narrowed to another server", ticket: attenuate(t, mint(t, sk, "tools=read_file,git/log"), "tools=git/log"), edit: server("fs"),
			want: "block 1 caveat tools", servers: []string{"git"}},
		{name: "narrowed to a qualified name, no server name", ticket: attenuate(t, mint(t, sk, "tools=read_file"), "tools=fs/read_file"),
			want: "block 1 caveat tools", servers: []string{"fs"}},
		{name: "narrowed, still reachable", ticket: attenuate(t, mint(t, sk, "tools=read_file,write_file"), "tools=fs/read_file"), edit: server("fs")},
		{name: "expired", ticket: mint(t, sk, "until=10m"), edit: func(c *Config) { c.Now = at(time.Hour) },
			want: "block 0 caveat until: expired at 2026-06-01T10:10:00Z"},
		{name: "expires this second", ticket: mint(t, sk, "until=10m"), edit: func(c *Config) { c.Now = at(10 * time.Minute) },
			want: "caveat until"},
		{name: "expires the next second", ticket: mint(t, sk, "until=10m"), edit: func(c *Config) { c.Now = at(10*time.Minute - time.Second) }},
		{name: "expired within the skew", ticket: mint(t, sk, "until=10m"), edit: func(c *Config) {
			c.Now, c.Options.Skew = at(11*time.Minute), 2*time.Minute
		}},
		{name: "not yet valid", ticket: mint(t, sk, "nbf=10m")},
		{name: "unknown key id", ticket: mint(t, otherID, "tools=read_file"), want: "key: no key for the ticket's key id"},
		{name: "revoked", ticket: revokedTicket, edit: func(c *Config) { c.Options.Revoked = verify.RevokedSet{last: {}} },
			want: "block 0 revoked"},
		{name: "policy: holder", ticket: mint(t, sk), edit: func(c *Config) { c.Options.RequireHolder = true },
			want: "policy: holder binding required"},
		{name: "policy: mode", ticket: mint(t, sk), edit: func(c *Config) { c.Options.Modes = []key.Alg{key.HMACSHA256} },
			want: "key: policy does not accept ed25519 keys"},
		{name: "aud is the server name", ticket: mint(t, sk, "aud=fs"), edit: server("fs")},
		{name: "aud is the audience", ticket: mint(t, sk, "aud=ws"), edit: func(c *Config) { c.ServerName, c.Audience = "fs", "ws" }},
		{name: "aud of another", ticket: mint(t, sk, "aud=ws"), edit: server("fs"),
			want: "block 0 caveat aud: audience fs is not in aud=ws"},
		{name: "aud, no audience", ticket: mint(t, sk, "aud=ws"), want: "block 0 caveat aud: verifier names no audience"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &syncBuffer{}
			cfg := Config{Ticket: tc.ticket, Keys: keys, Now: fixedNow, Log: log}
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			_, err := New(cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			var se *StartError
			if !errors.As(err, &se) || !errors.Is(err, ErrNeverAllowed) {
				t.Fatalf("New: %v (%T), want a *StartError", err, err)
			}
			if !strings.HasPrefix(err.Error(), "mcp: the ticket can never allow a call: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New: %v, want %q", err, tc.want)
			}
			if !slices.Equal(se.Servers, tc.servers) {
				t.Errorf("Servers %q, want %q", se.Servers, tc.servers)
			}
		})
	}
}

func server(name string) func(*Config) { return func(c *Config) { c.ServerName = name } }

// TestSetTicket: a good ticket replaces the old one for the next call; a
// bad one is refused and the old one stays enforced.
func TestSetTicket(t *testing.T) {
	sk, _ := rootKey(t)
	wrongRoot, err := fixedkey.Signing(key.Ed25519, "root", "another root")
	if err != nil {
		t.Fatal(err)
	}
	_, jkt := holderKey(t, "mcp holder")
	s := start(t, options{version: "2025-11-25", caveats: []string{"tools=read_file"}})
	f := filepath.Join(s.dir, "a")
	os.WriteFile(f, []byte("a"), 0o600)
	write := map[string]any{"path": f, "content": "b"}
	refused(t, s, "write_file", write, "block 0 caveat tools")

	b := mint(t, sk, "paths="+s.dir, "tools=read_file,write_file")
	if err := s.p.SetTicket(b); err != nil {
		t.Fatal(err)
	}
	if txt, isErr := s.call(t, "write_file", write); isErr {
		t.Fatalf("write_file after SetTicket: %s", txt)
	}

	for name, tc := range map[string]struct {
		ticket *token.Ticket
		want   string
	}{
		"nil":          {nil, "needs a ticket"},
		"forged":       {mint(t, wrongRoot, "tools=read_file"), "block 0 chain"},
		"expired":      {mint(t, sk, "until=2026-06-01T09:00:00Z"), "caveat until: expired at 2026-06-01T09:00:00Z"},
		"other server": {mint(t, sk, "tools=git/log"), "caveat tools"},
		"aud":          {mint(t, sk, "aud=ws"), "caveat aud"},
		"bound":        {mint(t, sk, "holder="+jkt), "bound to a holder key"},
	} {
		if err := s.p.SetTicket(tc.ticket); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: SetTicket: %v, want an error with %q", name, err, tc.want)
		}
		if s.p.state().ticket != b {
			t.Fatalf("%s: the refused ticket replaced the old one", name)
		}
	}
	if txt, isErr := s.call(t, "write_file", write); isErr {
		t.Fatalf("write_file after the refused tickets: %s", txt)
	}
	refused(t, s, "read_file", map[string]any{"path": filepath.Join(s.out, "x")}, "block 0 caveat paths")

	// A narrower ticket: its paths take effect too.
	os.Mkdir(filepath.Join(s.dir, "sub"), 0o700)
	if err := s.p.SetTicket(attenuate(t, b, "paths="+filepath.Join(s.dir, "sub"))); err != nil {
		t.Fatal(err)
	}
	refused(t, s, "read_file", map[string]any{"path": f}, "block 1 caveat paths")
	if strings.Contains(s.log.String(), "tkt1_") {
		t.Errorf("the log shows a ticket:\n%s", s.log)
	}
}

// TestSetTicketConcurrent swaps two tickets bound to the proxy's holder key
// while calls are decided: every call is decided under one of them, whole.
// Had a decision taken the ticket from one and the text its DPoP proof
// covers (ath) from the other, the proof would not verify.
func TestSetTicketConcurrent(t *testing.T) {
	sk, _ := rootKey(t)
	hk, jkt := holderKey(t, "mcp holder")
	s := start(t, options{version: "2025-11-25", caveats: []string{"tools=read_file", "holder=" + jkt},
		edit: func(c *Config, _ *setup) { c.Holder = hk }})
	a := s.p.state().ticket
	b := mint(t, sk, "paths="+s.dir, "tools=read_multiple_files", "holder="+jkt)
	f := filepath.Join(s.dir, "a")
	os.WriteFile(f, []byte("a"), 0o600)

	stop := make(chan struct{})
	swapped := make(chan int)
	go func() {
		n := 0
		defer func() { swapped <- n }()
		for {
			for _, tk := range []*token.Ticket{b, a} {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.p.SetTicket(tk); err != nil {
					t.Error(err)
					return
				}
				n++
			}
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for g := range 4 {
		wg.Go(func() {
			for i := range 20 {
				tool, args := "read_file", map[string]any{"path": f}
				if (g+i)%2 == 1 {
					tool, args = "read_multiple_files", map[string]any{"paths": []string{f}}
				}
				txt, isErr := s.call(t, tool, args)
				outcome := "allowed"
				if isErr {
					outcome = "refused"
					if !strings.HasPrefix(txt, RefusalPrefix+"block 0 caveat tools: ") || strings.Contains(txt, ";") {
						t.Errorf("%s: %s", tool, txt)
					}
				}
				mu.Lock()
				outcomes[tool+" "+outcome]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	t.Logf("%d swaps; outcomes %v", <-swapped, outcomes)
}
