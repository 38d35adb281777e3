package storebench

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/store/redisstore"
	"github.com/tickettool/tickettool/store/sqlitestore"
)

// memoryEngine pairs the memory store with maps under a lock taking the
// store's writes with the store's key types: a replay key, three
// counters, a verdict.
func memoryEngine(t *testing.T) engine {
	s := guard.NewMemoryStore()
	t.Cleanup(func() { s.Close() })
	type famKey struct{ family, key [32]byte }
	type counterKey struct {
		family  [32]byte
		counter guard.Counter
	}
	type count struct {
		n       uint64
		expires time.Time
	}
	type requestKey struct {
		family [32]byte
		id     guard.RequestID
	}
	type request struct {
		digest [32]byte
		state  guard.HoldState
		keep   time.Time
	}
	var mu sync.Mutex
	replay, counters := map[famKey]time.Time{}, map[counterKey]*count{}
	requests := map[requestKey]*request{}
	var ck []counterKey
	for _, b := range budgets {
		ck = append(ck, counterKey{chain[0], guard.CounterOf(b)})
	}
	bare := func(_ context.Context, i uint64) error {
		var k famKey
		k.family = chain[0]
		binary.BigEndian.PutUint64(k.key[:], i)
		var id guard.RequestID
		binary.BigEndian.PutUint64(id[:], i)
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		replay[k] = now
		for _, c := range ck {
			if n := counters[c]; n != nil {
				n.n++
			} else {
				counters[c] = &count{1, now}
			}
		}
		requests[requestKey{chain[0], id}] = &request{k.key, guard.Captured, now}
		return nil
	}
	return engine{name: "memory", batch: 20000, store: admitWith(s), bare: bare}
}

// sqliteEngine pairs the SQLite store with the bare engine doing the
// store's own writes: in a file with the store's schema (made by
// sqlitestore.Open), one transaction (BEGIN IMMEDIATE, the same pragmas,
// prepared statements) upserting the replay key, the three counters and
// the verdict, with the SQL sqlitestore uses for them. The difference is
// what the store adds: its reads and checks.
func sqliteEngine(t *testing.T, normal bool) engine {
	dir := t.TempDir()
	o, sync, name, n := sqlitestore.Options{}, "FULL", "SQLite FULL", 400
	if normal {
		o.Sync, sync, name, n = sqlitestore.SyncNormal, "NORMAL", "SQLite NORMAL", 1000
	}
	s, err := sqlitestore.Open(context.Background(), filepath.Join(dir, "store.db"), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	bareFile := filepath.Join(dir, "bare.db")
	schema, err := sqlitestore.Open(context.Background(), bareFile, o)
	if err != nil {
		t.Fatal(err)
	}
	schema.Close()
	db, err := sql.Open("sqlite", "file:"+bareFile+"?_txlock=immediate&_busy_timeout=5000&_journal_mode=WAL&_synchronous="+sync)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	prep := func(q string) *sql.Stmt {
		st, err := db.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// The store's statements (sqlitestore/stmts.go).
	putReplay := prep(`INSERT INTO replay (family, digest, until) VALUES (?, ?, ?)
		ON CONFLICT DO UPDATE SET until = excluded.until`)
	addCounter := prep(`INSERT INTO counters (family, counter, spent, expires) VALUES (?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET spent = spent + excluded.spent,
		expires = CASE WHEN expires = 0 OR excluded.expires = 0 THEN 0 ELSE max(expires, excluded.expires) END`)
	putRequest := prep(`INSERT OR REPLACE INTO requests (family, id, digest, reason, idx, state, hold, keep, charges)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	fam := chain[0][:]
	var names []string
	for _, b := range budgets {
		names = append(names, guard.CounterOf(b).String())
	}
	bare := func(ctx context.Context, i uint64) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		// The keys the store would write for admission i.
		now := time.Now()
		a := admission(i, now)
		d := guard.ReplayDigest(a.Replay.Key)
		if _, err := tx.StmtContext(ctx, putReplay).ExecContext(ctx, fam, d[:], a.Replay.Until.UnixNano()); err != nil {
			return err
		}
		for _, c := range names {
			if _, err := tx.StmtContext(ctx, addCounter).ExecContext(ctx, fam, c, 1, now.Add(time.Hour).UnixNano()); err != nil {
				return err
			}
		}
		_, err = tx.StmtContext(ctx, putRequest).ExecContext(ctx, fam, a.Request[:], d[:], 0, -1, 2, 0,
			now.Add(15*time.Minute).UnixNano(), "")
		if err != nil {
			return err
		}
		return tx.Commit()
	}
	return engine{name: name, batch: n, store: admitWith(s), bare: bare}
}

var trivial = redis.NewScript(`return 1`)

// redisEngine pairs the Redis store with a bare EVALSHA round trip of a
// trivial script.
func redisEngine(t *testing.T, addr string) engine {
	pre := fmt.Sprintf("tt-bench-%d:", time.Now().UnixNano())
	s, err := redisstore.Open(context.Background(), "redis://"+addr, redisstore.Options{Prefix: pre})
	if err != nil {
		t.Fatal(err)
	}
	// The client options the store sets (redisstore.Open).
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, ContextTimeoutEnabled: true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}})
	t.Cleanup(func() {
		s.Close()
		iter := c.Scan(context.Background(), 0, pre+"*", 1000).Iterator()
		for iter.Next(context.Background()) {
			c.Del(context.Background(), iter.Val())
		}
		c.Close()
	})
	bare := func(ctx context.Context, _ uint64) error { return trivial.Run(ctx, c, nil).Err() }
	return engine{name: "Redis", batch: 2000, store: admitWith(s), bare: bare}
}
