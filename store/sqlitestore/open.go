package sqlitestore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tickettool/tickettool/guard"
	"modernc.org/sqlite"
)

// Sync is the durability of a committed step.
type Sync int

const (
	// SyncFull (the default) syncs every commit: it survives power loss.
	SyncFull Sync = iota
	// SyncNormal syncs at checkpoints only: it survives a crash of the
	// process, but the last commits before a power loss may be lost.
	SyncNormal
)

// Options configures a [Store]. The zero value is the safe default.
type Options struct {
	Sync Sync
	// BusyTimeout bounds how long a write waits for the write lock held
	// by another process; zero means DefaultBusyTimeout. A write that
	// cannot get it fails (and the caller refuses).
	BusyTimeout time.Duration
}

// Store is a [guard.Store] in one SQLite file.
type Store struct {
	db     *sql.DB
	busy   time.Duration // the busy timeout, for messages
	st     *stmts
	mu     sync.Mutex // guards admits
	admits int
	shm    *shmFile // released on Close
}

var _ guard.Store = (*Store)(nil)

// Open opens the store in the file at path, creating it (mode 0600) and
// its schema if it does not exist. It refuses a file that is not a store,
// a store of an unknown schema version, and (with an error matching
// [ErrUnsafeFile]) a store another local user could rewind: a file, or a
// write-ahead log, shared-memory index or rollback journal beside it,
// that belongs to another user or that others may write, and a directory
// others may write without the sticky bit. It creates those three
// siblings itself, exclusively and with mode 0600, before SQLite opens
// them, and checks them again once SQLite has.
func Open(ctx context.Context, path string, o Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, guard.Failed("sqlitestore", "open", err)
	}
	if err := checkDir(filepath.Dir(abs)); err != nil {
		return nil, err
	}
	if err := createStore(ctx, abs, o); err != nil {
		return nil, err
	}
	return open(ctx, abs, o)
}

// open opens the existing store file at abs.
func open(ctx context.Context, abs string, o Options) (*Store, error) {
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, guard.Failed("sqlitestore", "open", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("sqlitestore: %s is not a regular file", abs)
	}
	real, err := resolve(abs)
	if err != nil {
		return nil, err
	}
	if filepath.Dir(real) != filepath.Dir(abs) {
		if err := checkDir(filepath.Dir(real)); err != nil {
			return nil, err
		}
	}
	main, err := os.Lstat(real)
	if err != nil {
		return nil, guard.Failed("sqlitestore", "open", err)
	}
	if err := checkOwned(real, main); err != nil {
		return nil, err
	}
	claimed, shm, err := claimSiblings(real)
	if err != nil {
		return nil, err
	}
	defer closeClaims(claimed)
	s, err := connect(ctx, real, o, claimed, main.Size() == 0)
	if err != nil {
		shm.release()
		return nil, err
	}
	s.shm = shm
	return s, nil
}

// connect opens SQLite on the store file at real, whose siblings are
// claimed, and checks them again once SQLite holds them.
func connect(ctx context.Context, real string, o Options, claimed []claim, wasEmpty bool) (*Store, error) {
	if testHookClaimed != nil {
		testHookClaimed(real)
	}
	c, err := newConnector(real, o)
	if err != nil {
		return nil, guard.Failed("sqlitestore", "open", err)
	}
	db := sql.OpenDB(c)
	// One connection per handle: writes are serialised anyway, and the
	// database/sql pool then queues callers fairly, honouring their
	// contexts, instead of SQLite's busy handler polling.
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	s := &Store{db: db, busy: busy}
	if err := s.setUp(ctx, real); err != nil {
		db.Close()
		return nil, err
	}
	if err := recheckSiblings(claimed, wasEmpty); err != nil {
		db.Close()
		return nil, err
	}
	if s.st, err = prepare(ctx, db); err != nil {
		db.Close()
		return nil, s.failed("open", err)
	}
	return s, nil
}

// newConnector returns the connector of the store file at path: every
// connection it makes is in WAL mode and persists the write-ahead log and
// its index when it closes, so that the names claimSiblings claimed are
// never removed and left for another user to create.
func newConnector(path string, o Options) (driver.Connector, error) {
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	sync := "FULL"
	if o.Sync == SyncNormal {
		sync = "NORMAL"
	}
	q := url.Values{}
	q.Set("mode", "rw") // never create: createStore did, with its mode
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", sync)
	// The connections persist the write-ahead log (persistWAL): the
	// last to close truncates it to nothing after its checkpoint, so the
	// next open does not read old frames again and the log never grows
	// without bound.
	q.Set("_pragma", "journal_size_limit("+strconv.Itoa(walSizeLimit)+")")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return persistWAL{c}, nil
}

// persistWAL is a connector whose connections keep the write-ahead log
// and its index on close (SQLITE_FCNTL_PERSIST_WAL).
type persistWAL struct{ driver.Connector }

func (p persistWAL) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := p.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	fc, ok := conn.(sqlite.FileControl)
	if !ok {
		conn.Close()
		return nil, errors.New("the SQLite driver has no file control")
	}
	if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// schemaSQL is version 1. Tables are WITHOUT ROWID: a row lives in its
// primary key's B-tree, so a step dirties fewer pages; the expiry
// indexes serve cleanup.
const schemaSQL = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE revoked (family BLOB NOT NULL, block BLOB NOT NULL, expires INTEGER NOT NULL,
	PRIMARY KEY (family, block)) WITHOUT ROWID;
CREATE INDEX revoked_expires ON revoked (expires);
CREATE TABLE replay (family BLOB NOT NULL, digest BLOB NOT NULL, until INTEGER NOT NULL,
	PRIMARY KEY (family, digest)) WITHOUT ROWID;
CREATE INDEX replay_until ON replay (until);
CREATE TABLE counters (family BLOB NOT NULL, counter TEXT NOT NULL, spent INTEGER NOT NULL,
	expires INTEGER NOT NULL, PRIMARY KEY (family, counter)) WITHOUT ROWID;
CREATE INDEX counters_expires ON counters (expires);
CREATE TABLE requests (family BLOB NOT NULL, id BLOB NOT NULL, digest BLOB NOT NULL,
	reason INTEGER NOT NULL, idx INTEGER NOT NULL, state INTEGER NOT NULL,
	hold INTEGER NOT NULL, keep INTEGER NOT NULL, charges TEXT NOT NULL,
	PRIMARY KEY (family, id)) WITHOUT ROWID;
CREATE INDEX requests_keep ON requests (keep);
`

// setUp connects and runs schema, trying again while SQLite reports the
// file busy, until the busy timeout or the context ends. Processes that
// open a new file at once race to switch it to WAL mode and create its
// schema, and SQLite can then answer SQLITE_BUSY at once, without waiting
// in its busy handler (seen in about 1 of 100 such openings): a store
// that is merely being created must not refuse.
func (s *Store) setUp(ctx context.Context, path string) error {
	deadline := time.Now().Add(s.busy)
	for {
		err := s.schema(ctx, path)
		var locked *LockedError
		if !errors.As(err, &locked) || !time.Now().Before(deadline) {
			return err
		}
		t := time.NewTimer(setUpRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// schema checks the version of an existing store without taking the
// write lock (in WAL mode a reader never waits for a writer), so that
// opening a busy store does not queue behind other processes'
// admissions. An empty file gets its schema in one write transaction,
// which checks again, so that processes opening a new file at once
// create it once.
func (s *Store) schema(ctx context.Context, path string) error {
	done, err := s.checkVersion(ctx, s.db, path)
	if err != nil || done {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.failed("open", lockWait(ctx, err))
	}
	defer tx.Rollback()
	if done, err := s.checkVersion(ctx, tx, path); err != nil || done {
		return err
	}
	if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
		return s.failed("open", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version VALUES (?)`, SchemaVersion); err != nil {
		return s.failed("open", err)
	}
	if err := tx.Commit(); err != nil {
		return s.failed("open", err)
	}
	return nil
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkVersion reports whether the file holds a store of this schema
// version (true), or no table at all (false); it refuses anything else.
func (s *Store) checkVersion(ctx context.Context, q querier, path string) (bool, error) {
	var tables int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table'`).Scan(&tables); err != nil {
		return false, s.failed("open", err)
	}
	if tables == 0 {
		return false, nil
	}
	var version int64
	err := q.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	if err != nil {
		return false, fmt.Errorf("sqlitestore: %s is not a tickettool store (no schema version: %v)", path, err)
	}
	if version != SchemaVersion {
		return false, fmt.Errorf("sqlitestore: %s has schema version %d; this build reads version %d only", path, version, SchemaVersion)
	}
	return true, nil
}

// Close implements [guard.Store].
func (s *Store) Close() error {
	err := s.db.Close()
	s.shm.release()
	s.shm = nil
	if err != nil {
		return guard.Failed("sqlitestore", "close", err)
	}
	return nil
}
