package sqlitestore

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// TestHelperProcess is not a test: it is the worker process of the
// multi-process tests (the test binary run again, see storetest.Worker).
func TestHelperProcess(t *testing.T) {
	if os.Getenv("SQLITESTORE_SLOW_TX") != "" {
		// Widen every transaction so that a kill lands inside one.
		testHookInTx = func() { time.Sleep(time.Millisecond) }
	}
	storetest.Worker(func(ctx context.Context) (guard.Store, error) {
		return Open(ctx, os.Getenv("SQLITESTORE_PATH"), Options{})
	})
}

// Four processes spending one family's budgets through one file admit
// exactly as many calls as the smallest budget allows, whichever it is.
func TestProcessesShareBudgets(t *testing.T) {
	for name, s := range map[string]storetest.Spend{
		"block-0 calls": {Calls0: 60, Total0: 300, Cost: 3, Calls1: 90},
		"block-0 total": {Calls0: 90, Total0: 180, Cost: 3, Calls1: 90},
		"block-1 calls": {Calls0: 90, Total0: 300, Cost: 3, Calls1: 70},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store.db")
			n := storetest.SpendInProcesses(t, 4, s, "SQLITESTORE_PATH="+path)
			if n != s.Min() {
				t.Fatalf("4 processes admitted %d calls, want exactly %d", n, s.Min())
			}
			st, err := Open(context.Background(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			u, err := st.Spent(context.Background(), storetest.Chain("procs", 2)[0], s.Budgets())
			if err != nil || u[0].Spent != n || u[1].Spent != n*s.Cost || u[2].Spent != n {
				t.Fatalf("spent %+v, %v; want %d calls", u, err, n)
			}
		})
	}
}

// Workers killed (SIGKILL) at random moments, mostly inside a
// transaction, and restarted: the budget is never exceeded, every
// acknowledged admission is counted, and the file stays intact.
func TestKillDuringTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := storetest.Spend{Calls0: 400, Total0: 10_000, Cost: 1, Calls1: 10_000}
	env := []string{"SQLITESTORE_PATH=" + path, "SQLITESTORE_SLOW_TX=1"}
	var mu sync.Mutex
	var acked uint64
	type worker struct {
		cmd     *exec.Cmd
		counted chan struct{} // closed when its output is read to the end
	}
	start := func() worker {
		cmd, lines := storetest.StartWorker(t, s, env...)
		w := worker{cmd, make(chan struct{})}
		go func() {
			n, _, _ := storetest.Count(lines)
			mu.Lock()
			acked += n
			mu.Unlock()
			close(w.counted)
		}()
		return w
	}
	workers := []worker{start(), start(), start(), start()}
	kills := 0
	for kills < 10 {
		time.Sleep(time.Duration(20+rand.IntN(60)) * time.Millisecond)
		i := rand.IntN(len(workers))
		w := workers[i]
		w.cmd.Process.Signal(syscall.SIGKILL)
		<-w.counted
		err := w.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.Success() {
			break // it had already finished: the budget is spent
		}
		kills++
		workers[i] = start()
	}
	for _, w := range workers {
		<-w.counted
		w.cmd.Wait() // the survivors end when the budget is spent
	}
	if kills < 5 {
		t.Fatalf("only %d workers were killed before the budget was spent", kills)
	}
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.Spent(context.Background(), storetest.Chain("procs", 2)[0], s.Budgets())
	if err != nil {
		t.Fatal(err)
	}
	// Spent reaches the limit exactly (the survivors spend the rest) and
	// never passes it; acknowledgements lost with a killed worker are at
	// most one per kill.
	if u[0].Spent != s.Calls0 || acked > s.Calls0 || s.Calls0-acked > uint64(kills) {
		t.Fatalf("spent %d of %d, %d acknowledged, %d kills", u[0].Spent, s.Calls0, acked, kills)
	}
	t.Logf("%d kills, %d of %d admissions acknowledged", kills, acked, s.Calls0)
	checkIntegrity(t, path)
}

func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q, %v", res, err)
	}
}

// A one-shot discharge (calls=1) presented by two processes in turn, each
// with its own guard on one store file: the first call is allowed, the
// second refused, its budget spent in the file.
func TestProcessesOneShotDischarge(t *testing.T) {
	storetest.OneShotInProcesses(t, "SQLITESTORE_PATH="+filepath.Join(t.TempDir(), "store.db"))
}
