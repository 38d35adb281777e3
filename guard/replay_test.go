package guard_test

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/store/sqlitestore"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestProofToTwoGuards: the same DPoP proof sent to two guards (two
// handles on one SQLite file) at once is allowed exactly once.
func TestProofToTwoGuards(t *testing.T) {
	holder, tk, keys := boundFixture(t)
	path := filepath.Join(t.TempDir(), "store.db")
	ctx := context.Background()
	var guards []*guard.Guard
	for range 2 {
		s, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		g, err := guard.New(guard.Config{Keys: keys, Store: s})
		if err != nil {
			t.Fatal(err)
		}
		guards = append(guards, g)
	}
	for round := range 10 {
		proof, err := dpop.Make(holder, "POST", "mcp://fs/read_file", dpop.MakeOptions{AccessToken: tk.String(), IssuedAt: t0})
		if err != nil {
			t.Fatal(err)
		}
		var allowed atomic.Int32
		var wg sync.WaitGroup
		for _, g := range guards {
			for range 2 {
				wg.Go(func() {
					r := readFile()
					r.Holder = &caveat.HolderProof{Proof: proof, Method: "POST", URI: "mcp://fs/read_file"}
					if d, err := g.Verify(ctx, tk, r, t0); err == nil && d.Allowed {
						allowed.Add(1)
					}
				})
			}
		}
		wg.Wait()
		if n := allowed.Load(); n != 1 {
			t.Fatalf("round %d: one proof allowed %d times", round, n)
		}
	}
}

// TestReplayRefusalNamesHolderBlock: a replayed proof is refused as the
// verifier refuses a bad proof: dpop, the block of the last holder caveat.
func TestReplayRefusalNamesHolderBlock(t *testing.T) {
	holder, tk, keys := boundFixture(t)
	g, err := guard.New(guard.Config{Keys: keys, Store: guard.NewMemoryStore()})
	if err != nil {
		t.Fatal(err)
	}
	proof, err := dpop.Make(holder, "POST", "mcp://fs/read_file", dpop.MakeOptions{AccessToken: tk.String(), IssuedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	r := readFile()
	r.Holder = &caveat.HolderProof{Proof: proof, Method: "POST", URI: "mcp://fs/read_file"}
	ctx := context.Background()
	if d, err := g.Verify(ctx, tk, r, t0); err != nil || !d.Allowed {
		t.Fatalf("first use: %+v, %v", d, err)
	}
	d, err := g.Verify(ctx, tk, r, t0)
	if err != nil || d.Allowed || len(d.Refusals) != 1 {
		t.Fatalf("replay: %+v, %v", d, err)
	}
	if f := d.Refusals[0]; f.Check != verify.CheckDPoP || f.Block != 0 || f.Kind != caveat.Holder {
		t.Errorf("replay refused as %+v, want dpop, block 0, holder", f)
	}
}

// boundFixture is fixture's ticket bound to a fixed EdDSA holder key.
func boundFixture(t *testing.T) (*key.Holder, *token.Ticket, *token.Keyring) {
	t.Helper()
	holder, err := fixedkey.Holder(key.Ed25519, "guard holder")
	if err != nil {
		t.Fatal(err)
	}
	tk, keys := fixture(t, "holder="+holder.Thumbprint())
	return holder, tk, keys
}
