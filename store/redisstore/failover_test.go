package redisstore

import (
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// A failover: the primary is killed (SIGKILL) while eight callers admit,
// and its replica is promoted. Admissions the callers saw admitted but
// the replica lacks are lost: their budget can be spent again. With
// Options.Replicas = 1 (and one replica) none may be lost; without, the
// test reports how many were. TICKETTOOL_FAILOVER_TRIALS sets the number
// of trials per mode (default 1).
func TestFailover(t *testing.T) {
	trials := 1
	if n, err := strconv.Atoi(os.Getenv("TICKETTOOL_FAILOVER_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	for _, replicas := range []int{0, 1} {
		var lost, acked uint64
		for range trials {
			l, a := failover(t, replicas)
			lost, acked = lost+l, acked+a
		}
		t.Logf("Replicas=%d: %d of %d acknowledged admissions lost in %d failovers", replicas, lost, acked, trials)
		if replicas > 0 && lost > 0 {
			t.Errorf("WAIT mode lost %d acknowledged admissions", lost)
		}
	}
}

// failover runs one trial and returns the admissions lost and acknowledged.
func failover(t *testing.T, replicas int) (lost, acked uint64) {
	primary := startServer(t, "--repl-diskless-sync-delay", "0", "--appendonly", "no")
	replica := startServer(t, "--replicaof", "127.0.0.1", strconv.Itoa(primary.port), "--appendonly", "no")
	waitForReplica(t, primary, replica)
	s, err := Open(bg, primary.url(), Options{Replicas: replicas, ReplicaTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := storetest.Chain("failover", 1)
	b := storetest.Calls(c, 0, guard.MaxCount)
	var n atomic.Uint64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				v, err := s.Admit(bg, storetest.Admission(c, time.Now(), b))
				if err != nil {
					return // the primary is gone: every later call refuses
				}
				if v.Admitted {
					n.Add(1)
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	primary.kill()
	wg.Wait()
	rc := replica.client()
	if err := rc.Do(bg, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	got, err := rc.HGet(bg, s.keys(c[0]).counter(guard.CounterOf(b)), "n").Uint64()
	if err != nil {
		t.Fatal(err)
	}
	if a := n.Load(); a > got {
		return a - got, a
	}
	return 0, n.Load()
}
