package redisstore

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// With Options.Replicas, a write no replica acknowledges fails (the caller
// refuses); once a replica follows the server, writes succeed.
func TestReplicasWait(t *testing.T) {
	primary := startServer(t, "--repl-diskless-sync-delay", "0")
	o := Options{Replicas: 1, ReplicaTimeout: 200 * time.Millisecond}
	s := factory(primary.url(), o)(t)(t)
	c := storetest.Chain("a", 1)
	a := storetest.Admission(c, storetest.Base(), storetest.Calls(c, 0, 5))
	_, err := s.Admit(bg, a)
	if !errors.Is(err, guard.ErrStore) || !strings.Contains(err.Error(), "0 of 1 replicas") {
		t.Fatalf("admit without a replica: %v, want a refusal", err)
	}
	if err := s.Revoke(bg, guard.Revocation{Family: c[0], Blocks: c}, a.Now); !errors.Is(err, guard.ErrStore) {
		t.Fatalf("revoke without a replica: %v, want a refusal", err)
	}

	replica := startServer(t, "--replicaof", "127.0.0.1", strconv.Itoa(primary.port))
	waitForReplica(t, primary, replica)
	b := storetest.Admission(c, storetest.Base(), storetest.Calls(c, 0, 5))
	if v, err := s.Admit(bg, b); err != nil || v.Admitted {
		// The revocation was written before its WAIT failed: it holds.
		t.Fatalf("admit with a replica after the failed revoke: %+v, %v; want revoked", v, err)
	}
	other := storetest.Chain("b", 1)
	d := storetest.Admission(other, storetest.Base(), storetest.Calls(other, 0, 5))
	if v, err := s.Admit(bg, d); err != nil || !v.Admitted {
		t.Fatalf("admit with a replica: %+v, %v", v, err)
	}
	n, err := replica.client().HGet(bg, s.(*Store).keys(other[0]).counter(guard.CounterOf(d.Budgets[0])), "n").Result()
	if err != nil || n != "1" {
		t.Fatalf("replica's counter: %q, %v; want 1 once WAIT returned", n, err)
	}
}

// waitForReplica waits until replica follows primary: the initial sync
// done and the command stream flowing (after a diskless sync the primary
// streams only once the replica first acknowledges, up to a second
// later), shown by a write the replica acknowledges.
func waitForReplica(t *testing.T, primary, replica *server) {
	t.Helper()
	c := primary.client()
	want := "port=" + strconv.Itoa(replica.port) + ",state=online"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info, _ := c.Info(bg, "replication").Result()
		if strings.Contains(info, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica did not connect: %s", info)
		}
	}
	pipe := c.Pipeline() // one connection: WAIT counts that connection's writes
	pipe.Set(bg, "tt-test-probe", "1", time.Minute)
	acked := redis.NewIntCmd(bg, "wait", 1, 10_000)
	pipe.Process(bg, acked)
	if _, err := pipe.Exec(bg); err != nil || acked.Val() != 1 {
		t.Fatalf("replica did not acknowledge a write: %v", err)
	}
}
