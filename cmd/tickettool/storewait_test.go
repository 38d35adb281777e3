package main

import (
	"database/sql"
	"net"
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// testStoreWaitEnv, read by the test binary only, shortens how long a
// command waits for its store (storeWait), so that a script can make a
// store time out quickly.
const testStoreWaitEnv = "TICKETTOOL_TEST_STORE_WAIT"

func useTestStoreWait() {
	if d, err := time.ParseDuration(os.Getenv(testStoreWaitEnv)); err == nil && d > 0 {
		storeWait = d
	}
}

// cmdLockStore holds the write lock of a SQLite store (BEGIN IMMEDIATE,
// as another process's admission does) until the script ends.
func cmdLockStore(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "lockstore")
	if len(args) != 1 {
		ts.Fatalf("usage: lockstore FILE")
	}
	db, err := sql.Open("sqlite", "file:"+ts.MkAbs(args[0])+"?mode=rw&_txlock=immediate")
	ts.Check(err)
	tx, err := db.Begin()
	ts.Check(err)
	// A write, so that the lock is taken and held.
	_, err = tx.Exec(`UPDATE schema_version SET version = version`)
	ts.Check(err)
	ts.Defer(func() {
		tx.Rollback()
		db.Close()
	})
}

// cmdMuteServer listens on a loopback port, accepts every connection and
// never answers, until the script ends; it sets $VAR to its HOST:PORT.
func cmdMuteServer(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "muteserver")
	if len(args) != 1 {
		ts.Fatalf("usage: muteserver VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never read or written
		}
	}()
	ts.Defer(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	ts.Setenv(args[0], l.Addr().String())
}
