package guard_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// BenchmarkMemoryAdmit measures one full admission (two blocks, three
// budgets, a cost, a replay key) in the memory store.
func BenchmarkMemoryAdmit(b *testing.B) {
	s := guard.NewMemoryStore()
	c := storetest.Chain("bench", 2)
	now := time.Now()
	budgets := []guard.Admission{storetest.Admission(c, now, storetest.Calls(c, 0, guard.MaxCount),
		storetest.Total(c, 0, guard.MaxCount, "USD"), storetest.Calls(c, 1, guard.MaxCount))}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a := budgets[0]
		a.Request = guard.NewRequestID()
		a.Cost = storetest.Cost(1, "USD")
		a.Replay = storetest.Replay(fmt.Sprint("jti-", i), "https://bench/", now.Add(time.Minute))
		if v, err := s.Admit(context.Background(), a); err != nil || !v.Admitted {
			b.Fatal(v, err)
		}
	}
}
