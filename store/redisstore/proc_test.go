package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// TestHelperProcess is not a test: it is the worker process of the
// multi-process tests (the test binary run again, see storetest.Worker).
func TestHelperProcess(t *testing.T) {
	storetest.Worker(func(ctx context.Context) (guard.Store, error) {
		return Open(ctx, os.Getenv("REDISSTORE_URL"), Options{Prefix: os.Getenv("REDISSTORE_PREFIX")})
	})
}

// Four processes spending one family's budgets through one Redis server
// admit exactly as many calls as the smallest budget allows.
func TestProcessesShareBudgets(t *testing.T) {
	url := "redis://" + redisAddr(t)
	for name, s := range map[string]storetest.Spend{
		"block-0 calls": {Calls0: 150, Total0: 900, Cost: 3, Calls1: 200},
		"block-0 total": {Calls0: 200, Total0: 450, Cost: 3, Calls1: 200},
		"block-1 calls": {Calls0: 200, Total0: 900, Cost: 3, Calls1: 170},
	} {
		t.Run(name, func(t *testing.T) {
			pre := prefix()
			dropPrefix(t, url, pre)
			n := storetest.SpendInProcesses(t, 4, s, "REDISSTORE_URL="+url, "REDISSTORE_PREFIX="+pre)
			if n != s.Min() {
				t.Fatalf("4 processes admitted %d calls, want exactly %d", n, s.Min())
			}
			checkSpent(t, url, pre, s, n)
		})
	}
}

func checkSpent(t *testing.T, url, pre string, s storetest.Spend, n uint64) {
	t.Helper()
	st, err := Open(bg, url, Options{Prefix: pre})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.Spent(bg, storetest.Chain("procs", 2)[0], s.Budgets())
	if err != nil || u[0].Spent != n || u[1].Spent != n*s.Cost || u[2].Spent != n {
		t.Fatalf("spent %+v, %v; want %d calls", u, err, n)
	}
}

// redis-server (AOF, appendfsync always) killed with SIGKILL several
// times while four processes spend a family, and restarted: the workers
// retry each failed admission with its request id, and in the end
// exactly the smallest budget was admitted and acknowledged, no more.
func TestKillServer(t *testing.T) {
	srv := startServer(t, "--appendfsync", "always")
	s := storetest.Spend{Calls0: 10_000, Total0: 30_000, Cost: 3, Calls1: 3000}
	pre := prefix()
	env := []string{"REDISSTORE_URL=" + srv.url(), "REDISSTORE_PREFIX=" + pre}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var acked, repeated uint64
	var failed error
	for range 4 {
		cmd, lines := storetest.StartWorker(t, s, env...)
		wg.Go(func() {
			n, r, done := storetest.Count(lines)
			err := cmd.Wait()
			mu.Lock()
			defer mu.Unlock()
			acked, repeated = acked+n, repeated+r
			if err != nil || !done {
				failed = fmt.Errorf("exit %v, done %v", err, done)
			}
		})
	}
	kills := 0
	exited := make(chan struct{})
	go func() { wg.Wait(); close(exited) }()
	for ; kills < 5; kills++ {
		select {
		case <-exited:
		case <-time.After(time.Duration(20+rand.IntN(80)) * time.Millisecond):
			srv.kill()
			time.Sleep(time.Duration(rand.IntN(100)) * time.Millisecond)
			srv.start()
			continue
		}
		break
	}
	<-exited
	if failed != nil {
		t.Fatalf("a worker failed: %v", failed)
	}
	if kills < 3 {
		t.Fatalf("the server was killed only %d times before the budget was spent", kills)
	}
	verdicts := admittedVerdicts(t, srv.url(), pre)
	t.Logf("%d kills of redis-server; %d admissions acknowledged, %d of them after a retry found the first try admitted; %d admitted verdicts held",
		kills, acked, repeated, verdicts)
	if acked != s.Min() || verdicts != acked {
		// Which side lost one tells the cause: fewer verdicts than acks
		// is an acknowledged write the server lost; more is an admission
		// charged and recorded whose acknowledgement never reached a
		// worker's count.
		t.Fatalf("acknowledged %d admissions, want exactly %d; the server holds %d admitted verdicts",
			acked, s.Min(), verdicts)
	}
	checkSpent(t, srv.url(), pre, s, acked)
}

// admittedVerdicts returns how many admitted verdicts (request records)
// the server at url holds under pre.
func admittedVerdicts(t *testing.T, url, pre string) uint64 {
	t.Helper()
	st, err := Open(bg, url, Options{Prefix: pre})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n uint64
	iter := st.rdb.Scan(bg, 0, st.keys(storetest.Chain("procs", 2)[0]).base+"req:*", 1000).Iterator()
	for iter.Next(bg) {
		rec, err := st.rdb.Get(bg, iter.Val()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.SplitN(rec, "|", 3); len(f) == 3 && f[1] == "0" {
			n++
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// A one-shot discharge (calls=1) presented by two processes in turn, each
// with its own guard on one Redis server: the first call is allowed, the
// second refused (issue #19).
func TestProcessesOneShotDischarge(t *testing.T) {
	url := "redis://" + redisAddr(t)
	pre := prefix()
	dropPrefix(t, url, pre)
	storetest.OneShotInProcesses(t, "REDISSTORE_URL="+url, "REDISSTORE_PREFIX="+pre)
}
