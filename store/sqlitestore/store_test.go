package sqlitestore

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

func factory(o Options) storetest.Factory {
	return func(t *testing.T) func(*testing.T) guard.Store {
		path := filepath.Join(t.TempDir(), "store.db")
		return func(t *testing.T) guard.Store {
			s, err := Open(context.Background(), path, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
}

func TestConformance(t *testing.T) { storetest.Run(t, factory(Options{})) }

func TestConformanceNormal(t *testing.T) { storetest.Run(t, factory(Options{Sync: SyncNormal})) }

func TestModel(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		f.Value.Set(modelChecks)
		defer f.Value.Set(f.DefValue)
	}
	storetest.RunModel(t, factory(Options{Sync: SyncNormal}))
}
