package sqlitestore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// BenchmarkAdmit measures one full admission (two blocks, three budgets,
// a cost, a replay key) in synchronous=NORMAL mode.
func BenchmarkAdmit(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "store.db"), Options{Sync: SyncNormal})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := storetest.Chain("bench", 2)
	now := time.Now()
	for i := 0; b.Loop(); i++ {
		a := storetest.Admission(c, now, storetest.Calls(c, 0, guard.MaxCount),
			storetest.Total(c, 0, guard.MaxCount, "USD"), storetest.Calls(c, 1, guard.MaxCount))
		a.Cost = storetest.Cost(1, "USD")
		a.Replay = storetest.Replay(fmt.Sprint("jti-", i), "https://bench/", now.Add(time.Minute))
		if v, err := s.Admit(context.Background(), a); err != nil || !v.Admitted {
			b.Fatal(v, err)
		}
	}
}
