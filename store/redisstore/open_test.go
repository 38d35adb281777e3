package redisstore

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

// Open refuses a server that may evict keys, naming the setting, and one
// that will not say unless the operator vouches for it.
func TestOpenChecksEviction(t *testing.T) {
	s := startServer(t)
	c := s.client()
	for _, policy := range []string{"allkeys-lru", "volatile-ttl", "allkeys-random"} {
		if err := c.ConfigSet(bg, "maxmemory-policy", policy).Err(); err != nil {
			t.Fatal(err)
		}
		for _, assume := range []bool{false, true} {
			_, err := Open(bg, s.url(), Options{AssumeNoEviction: assume})
			if err == nil || !strings.Contains(err.Error(), "maxmemory-policy is \""+policy+"\"") {
				t.Fatalf("policy %s (assume %v): %v, want a refusal naming maxmemory-policy", policy, assume, err)
			}
		}
	}
	c.ConfigSet(bg, "maxmemory-policy", "noeviction")
	st, err := Open(bg, s.url(), Options{})
	if err != nil {
		t.Fatalf("noeviction: %v", err)
	}
	st.Close()

	noConfig := startServer(t, "--rename-command", "CONFIG", "")
	if _, err := Open(bg, noConfig.url(), Options{}); err == nil || !strings.Contains(err.Error(), "assume-no-eviction") {
		t.Fatalf("CONFIG disabled: %v, want a refusal naming the option", err)
	}
	st, err = Open(bg, noConfig.url(), Options{AssumeNoEviction: true})
	if err != nil {
		t.Fatalf("CONFIG disabled, operator vouches: %v", err)
	}
	st.Close()
}

// The same, without a real server: miniredis has no CONFIG command.
func TestOpenMiniredis(t *testing.T) {
	m := miniredis.RunT(t)
	if _, err := Open(bg, "redis://"+m.Addr(), Options{}); err == nil || !strings.Contains(err.Error(), "maxmemory-policy") {
		t.Fatalf("no CONFIG: %v", err)
	}
	for _, bad := range []string{"http://" + m.Addr(), "redis://user:hunter2@[::1", "redis://u:hunter2@host:notaport"} {
		_, err := Open(bg, bad, Options{AssumeNoEviction: true})
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("url %q: %v; want an error that does not echo it", bad, err)
		}
	}
	for _, p := range []string{"a{b", "a}", "a b", strings.Repeat("x", maxPrefixBytes+1)} {
		if _, err := Open(bg, "redis://"+m.Addr(), Options{AssumeNoEviction: true, Prefix: p}); err == nil {
			t.Fatalf("prefix %q accepted", p)
		}
	}
}

// Every key one admission touches carries the family's hash tag.
func TestKeysShareTheFamilyTag(t *testing.T) {
	s := &Store{prefix: DefaultPrefix}
	c := storetest.Chain("a", 3)
	k := s.keys(c[0])
	tag := "{" + c[0].String() + "}"
	for _, key := range []string{k.request(guard.NewRequestID()), k.revoked(c[2]), k.replay([32]byte{1}),
		k.counter(guard.CounterOf(storetest.Total(c, 1, 5, "USD")))} {
		if i := strings.IndexByte(key, '{'); i < 0 || !strings.HasPrefix(key[i:], tag) {
			t.Errorf("key %s does not start its hash tag with %s", key, tag)
		}
	}
}

// The conformance suite on a Redis Cluster node (one node serving every
// slot): a script whose keys spanned two slots would fail with CROSSSLOT.
func TestConformanceCluster(t *testing.T) {
	s := startServer(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	c := s.client()
	if err := c.Do(bg, "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		info, _ := c.ClusterInfo(bg).Result()
		if strings.Contains(info, "cluster_state:ok") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster did not come up: %s", info)
		}
	}
	// A script touching two slots is refused: the test would catch it.
	if err := c.Eval(bg, "return 1", []string{"{a}x", "{b}y"}).Err(); err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Fatalf("cross-slot script: %v, want CROSSSLOT", err)
	}
	storetest.Run(t, factory(s.url(), Options{}))
}

// A server that accepts connections and never answers: every step fails
// with ErrStore by the caller's deadline.
func TestSilentServerRefuses(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err = Open(ctx, "redis://"+l.Addr().String(), Options{AssumeNoEviction: true})
	if !errors.Is(err, guard.ErrStore) || time.Since(begin) > 5*time.Second {
		t.Fatalf("open of a silent server: %v after %v, want ErrStore by the deadline", err, time.Since(begin))
	}
}
