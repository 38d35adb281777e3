package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
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
	s := storetest.Spend{Calls0: 10_000, Total0: 30_000, Cost: 3, Calls1: 3000}
	r := spendKilling(t, s, "always")
	t.Logf("%d kills of redis-server; %d admissions acknowledged, %d of them after a retry found the first try admitted; %d admitted verdicts held",
		r.kills, r.acked, r.repeated, r.verdicts)
	if r.acked != s.Min() || r.verdicts != r.acked {
		// Which side lost one tells the cause: fewer verdicts than acks
		// is an acknowledged write the server lost; more is an admission
		// charged and recorded whose acknowledgement never reached a
		// worker's count.
		t.Fatalf("acknowledged %d admissions, want exactly %d; the server holds %d admitted verdicts",
			r.acked, s.Min(), r.verdicts)
	}
	checkSpent(t, r.url, r.prefix, s, r.acked)
}

// The same with appendfsync everysec, Redis's default: it measures what
// the kills lose. Redis acknowledges a write before it reaches the file
// when an fsync is still running (it postpones the write by up to two
// seconds), so on a busy disk even a kill of the process, with no power
// loss, loses acknowledged admissions, and their budget is spent again.
// The store still never admits beyond what it holds: its verdicts are
// exactly the budget, and every loss shows as an extra acknowledgement.
func TestKillServerEverySec(t *testing.T) {
	s := storetest.Spend{Calls0: 10_000, Total0: 30_000, Cost: 3, Calls1: 3000}
	r := spendKilling(t, s, "everysec")
	t.Logf("appendfsync everysec: %d kills of redis-server; %d admissions acknowledged, %d of them lost and spent again",
		r.kills, r.acked, r.acked-min(r.acked, r.verdicts))
	if r.verdicts != s.Min() || r.acked < r.verdicts {
		t.Fatalf("acknowledged %d admissions; the server holds %d admitted verdicts, want exactly %d",
			r.acked, r.verdicts, s.Min())
	}
}

// killRun is what one run of spendKilling saw.
type killRun struct {
	kills                     int
	acked, repeated, verdicts uint64
	url, prefix               string
}

// spendKilling starts a redis-server with the appendfsync policy fsync
// and four workers spending s through it, kills (SIGKILL) and restarts
// the server five times while they spend (once the workers have
// acknowledged 5, 15, 25, 35 and 45% of the budget, plus a random
// moment), and returns what the workers acknowledged and what the server
// holds in the end. Pacing the kills by the workers' progress, not by the
// clock, kills mid-spend on a fast disk as on a slow one.
func spendKilling(t *testing.T, s storetest.Spend, fsync string) killRun {
	srv := startServer(t, "--appendfsync", fsync)
	r := killRun{url: srv.url(), prefix: prefix()}
	env := []string{"REDISSTORE_URL=" + srv.url(), "REDISSTORE_PREFIX=" + r.prefix}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	var progress atomic.Uint64
	for range 4 {
		cmd, lines := storetest.StartWorker(t, s, env...)
		wg.Go(func() {
			n, rep, done := storetest.CountEach(lines, func() { progress.Add(1) })
			err := cmd.Wait()
			mu.Lock()
			defer mu.Unlock()
			r.acked, r.repeated = r.acked+n, r.repeated+rep
			if err != nil || !done {
				failed = fmt.Errorf("exit %v, done %v", err, done)
			}
		})
	}
	exited := make(chan struct{})
	go func() { wg.Wait(); close(exited) }()
	running := func() bool {
		select {
		case <-exited:
			return false
		default:
			return true
		}
	}
	for _, percent := range []uint64{5, 15, 25, 35, 45} {
		for running() && progress.Load() < s.Min()*percent/100 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rand.IntN(5)) * time.Millisecond)
		if !running() {
			break
		}
		srv.kill()
		r.kills++
		time.Sleep(time.Duration(rand.IntN(50)) * time.Millisecond)
		srv.start()
	}
	<-exited
	if failed != nil {
		t.Fatalf("a worker failed: %v", failed)
	}
	if r.kills < 3 {
		t.Fatalf("the server was killed only %d times before the budget was spent", r.kills)
	}
	r.verdicts = admittedVerdicts(t, srv.url(), r.prefix)
	return r
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
// second refused.
func TestProcessesOneShotDischarge(t *testing.T) {
	url := "redis://" + redisAddr(t)
	pre := prefix()
	dropPrefix(t, url, pre)
	storetest.OneShotInProcesses(t, "REDISSTORE_URL="+url, "REDISSTORE_PREFIX="+pre)
}
