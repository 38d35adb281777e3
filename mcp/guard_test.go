package mcp

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/secrettest"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/verify"
)

func TestReceiptsOnePerDecision(t *testing.T) {
	rk, err := fixedkey.Signing(key.Ed25519, "receipts", "mcp receipts")
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, options{version: "2025-11-25", caveats: []string{"tools=read_file,list_roots", "calls=2"}, receipts: rk})
	f := filepath.Join(s.dir, "a")
	os.WriteFile(f, []byte("a"), 0o600)
	s.call(t, "read_file", map[string]any{"path": f})             // allowed
	s.call(t, "read_file", map[string]any{"path": "/etc/passwd"}) // refused: paths
	s.call(t, "write_file", map[string]any{"path": f})            // refused: tools
	s.call(t, "read_file", map[string]any{"path": f})             // allowed
	s.call(t, "read_file", map[string]any{"path": f})             // refused: budget
	if _, err := s.cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err) // not a decision: no receipt
	}
	sum, err := chain.Verify(s.logp, rk.Verifying(), "tickettool")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Count != 7 {
		t.Fatalf("%d receipts, want 7", sum.Count)
	}
	data, err := os.ReadFile(s.logp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for e, err := range chain.Scan(bytes.NewReader(data)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Record.Kind.String()+" "+e.Record.Tool+" "+e.Record.Caveat)
	}
	// Each allowed call is settled when the server answers: captured, in a
	// receipt of its own.
	want := []string{"allowed read_file ", "captured  ", "refused read_file paths", "refused write_file tools",
		"allowed read_file ", "captured  ", "refused read_file calls"}
	if !slices.Equal(got, want) {
		t.Fatalf("receipts %q, want %q", got, want)
	}

	// A decision that cannot be recorded is not forwarded.
	s.recs.Close()
	before := len(s.rec.seen())
	_, err = s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": f}})
	if err == nil || !strings.Contains(err.Error(), "could not be recorded durably") {
		t.Fatalf("got %v, want an internal error", err)
	}
	if len(s.rec.seen()) != before {
		t.Fatal("the server saw a call whose receipt failed")
	}
}

// holderKey returns a deterministic EdDSA holder key and its jkt.
func holderKey(t *testing.T, seed string) (*key.Holder, string) {
	k, err := fixedkey.Holder(key.Ed25519, seed)
	if err != nil {
		t.Fatal(err)
	}
	return k, k.Thumbprint()
}

func TestBoundTicket(t *testing.T) {
	hk, jkt := holderKey(t, "mcp holder")
	for _, server := range []string{"", "fs"} {
		s := start(t, options{version: "2025-06-18", caveats: []string{"holder=" + jkt}, edit: func(c *Config, _ *setup) {
			c.Holder, c.ServerName = hk, server
		}})
		f := filepath.Join(s.dir, "a")
		os.WriteFile(f, []byte("bound"), 0o600)
		for range 3 { // a fresh proof (jti) for every call
			if txt, isErr := s.call(t, "read_file", map[string]any{"path": f}); isErr || txt != "bound" {
				t.Fatalf("server %q: %q %v", server, txt, isErr)
			}
		}
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	sk, keys := rootKey(t)
	hk, jkt := holderKey(t, "mcp holder")
	other, _ := holderKey(t, "another holder")
	wrongRoot, err := fixedkey.Signing(key.Ed25519, "root", "another root")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		cfg  Config
		want string
	}{
		"no ticket":    {Config{Keys: keys}, "needs a ticket"},
		"no keys":      {Config{Ticket: mint(t, sk)}, "needs a keyring"},
		"forged":       {Config{Ticket: mint(t, wrongRoot, "tools=a"), Keys: keys}, "never allow a call: block 0 chain"},
		"bound":        {Config{Ticket: mint(t, sk, "holder="+jkt), Keys: keys}, "bound to a holder key"},
		"wrong holder": {Config{Ticket: mint(t, sk, "holder="+jkt), Keys: keys, Holder: other}, "not the key the ticket is bound to"},
		"server name":  {Config{Ticket: mint(t, sk), Keys: keys, ServerName: "a/b"}, "server name"},
		"policy":       {Config{Ticket: mint(t, sk), Keys: keys, Options: verify.Options{RequireExpiry: true}}, "never allow a call: policy"},
	} {
		tc.cfg.Log = &syncBuffer{}
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "mcp: ") {
			t.Errorf("%s: got %v, want an error with %q", name, err, tc.want)
		}
	}
	log := &syncBuffer{}
	if _, err := New(Config{Ticket: mint(t, sk, "holder="+jkt, "nbf=10m"), Keys: keys, Holder: hk, Log: log, Now: fixedNow}); err != nil {
		t.Fatalf("a ticket not yet valid starts (its calls are refused until it is): %v", err)
	}
	if !strings.Contains(log.String(), "warning: every call is refused for now: block 0 caveat nbf") {
		t.Fatalf("log: %s", log)
	}
}

func TestServerNameQualifiesTools(t *testing.T) {
	edit := func(c *Config, _ *setup) { c.ServerName = "fs" }
	s := start(t, options{version: "2025-11-25", caveats: []string{"tools=fs/read_file,other/write_file"}, edit: edit})
	f := filepath.Join(s.dir, "a")
	os.WriteFile(f, []byte("a"), 0o600)
	if txt, isErr := s.call(t, "read_file", map[string]any{"path": f}); isErr {
		t.Fatal(txt)
	}
	refused(t, s, "write_file", map[string]any{"path": f, "content": "x"}, "caveat tools", "fs/write_file")
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "read_file" {
		t.Fatalf("tools/list: %v %v", res, err)
	}
}

func TestAttenuatedTicket(t *testing.T) {
	s := start(t, options{version: "2025-11-25", edit: func(c *Config, s *setup) {
		c.Ticket = attenuate(t, c.Ticket, "paths="+filepath.Join(s.dir, "sub"))
	}})
	os.Mkdir(filepath.Join(s.dir, "sub"), 0o700)
	os.WriteFile(filepath.Join(s.dir, "sub", "a"), []byte("a"), 0o600)
	if txt, isErr := s.call(t, "read_file", map[string]any{"path": filepath.Join(s.dir, "sub", "a")}); isErr {
		t.Fatal(txt)
	}
	refused(t, s, "read_file", map[string]any{"path": filepath.Join(s.dir, "a")}, "block 1 caveat paths")
}

// TestProxyNeverPrintsHolderKey: the holder key given in Config is kept
// wrapped, so printing the Proxy (every field, exported or not) shows no
// key material.
func TestProxyNeverPrintsHolderKey(t *testing.T) {
	sk, keys := rootKey(t)
	hk, jkt := holderKey(t, "printed holder")
	raw, err := fixedkey.HolderKey(key.Ed25519, "printed holder")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Ticket: mint(t, sk, "holder="+jkt), Keys: keys, Holder: hk, Log: io.Discard, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if why := secrettest.Check(p, raw.(ed25519.PrivateKey).Seed()); why != "" {
		t.Error(why)
	}
}
