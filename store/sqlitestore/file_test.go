package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
	"github.com/tickettool/tickettool/verify"
)

var bg = context.Background()

// The store file, its WAL and its shared-memory index are 0600.
func TestFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(bg, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := storetest.Chain("a", 1)
	if _, err := s.Admit(bg, storetest.Admission(c, storetest.Base(), storetest.Calls(c, 0, 1))); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s has mode %#o, want 0600", filepath.Base(p), m)
		}
	}
}

// Open refuses a file others may write, and a directory.
func TestRefusesOpenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o620); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bg, path, Options{}); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("open of a group-writable file: %v", err)
	}
	if _, err := Open(bg, dir, Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("open of a directory: %v", err)
	}
}

// Open refuses a store of another schema version, and a file that is not
// a store.
func TestSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(bg, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	execSQL(t, path, `UPDATE schema_version SET version = 2`)
	if _, err := Open(bg, path, Options{}); err == nil || !strings.Contains(err.Error(), "schema version 2") {
		t.Fatalf("open of version 2: %v", err)
	}
	other := filepath.Join(t.TempDir(), "other.db")
	f, _ := os.OpenFile(other, os.O_CREATE|os.O_WRONLY, 0o600)
	f.Close()
	execSQL(t, other, `CREATE TABLE notes (x TEXT)`)
	if _, err := Open(bg, other, Options{}); err == nil || !strings.Contains(err.Error(), "not a tickettool store") {
		t.Fatalf("open of another database: %v", err)
	}
}

func execSQL(t *testing.T, path, q string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Admissions remove expired entries a batch at a time: replay keys past
// their until, verdicts past their retention, counters and revocations
// past their family's Expires; entries kept for ever stay.
func TestCleanup(t *testing.T) {
	s, err := Open(bg, filepath.Join(t.TempDir(), "store.db"), Options{Sync: SyncNormal})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := storetest.Base()
	old, kept := storetest.Chain("old", 1), storetest.Chain("kept", 1)
	a := storetest.Admission(old, now, storetest.Calls(old, 0, 5))
	a.Expires = now.Add(time.Second)
	a.Replay = storetest.Replay("j", "https://x/", now.Add(time.Second))
	b := storetest.Admission(kept, now, storetest.Calls(kept, 0, 5))
	b.Expires = time.Time{}
	for _, x := range []guard.Admission{a, b} {
		if _, err := s.Admit(bg, x); err != nil {
			t.Fatal(err)
		}
	}
	s.Revoke(bg, guard.Revocation{Family: old[0], Blocks: old, Expires: a.Expires}, now)
	s.Revoke(bg, guard.Revocation{Family: kept[0], Blocks: kept}, now)
	later := now.Add(guard.RequestRetention + time.Hour)
	other := storetest.Chain("other", 1)
	for range guard.CleanEvery {
		if _, err := s.Admit(bg, storetest.Admission(other, later)); err != nil {
			t.Fatal(err)
		}
	}
	for table, want := range map[string]int{"replay": 0, "counters": 1, "revoked": 1, "requests": guard.CleanEvery} {
		if n := count(t, s, table); n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	u, _ := s.Spent(bg, kept[0], []verify.Budget{storetest.Calls(kept, 0, 5)})
	if u[0].Spent != 1 {
		t.Errorf("a counter kept for ever was dropped: %+v", u)
	}
}

// A store whose write lock another process holds refuses (fails with
// ErrStore) within its busy timeout or the caller's deadline, whichever
// comes first, saying which; opening it meanwhile takes no lock and does
// not wait; the retry after the lock is freed charges once.
func TestLockedStoreTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	short, err := Open(bg, path, Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	long, err := Open(bg, path, Options{BusyTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer long.Close()
	locker, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	conn, err := locker.Conn(bg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(bg, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	opened, err := Open(bg, path, Options{BusyTimeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("open while another process holds the write lock: %v", err)
	}
	opened.Close()
	c := storetest.Chain("a", 1)
	a := storetest.Admission(c, storetest.Base(), storetest.Calls(c, 0, 5))
	begin := time.Now()
	_, err = short.Admit(bg, a)
	var locked *LockedError
	if !errors.Is(err, guard.ErrStore) || !errors.As(err, &locked) || locked.Wait != 100*time.Millisecond ||
		err.Error() != "sqlitestore: admit: another process held the store's write lock longer than the busy timeout (100ms)" {
		t.Fatalf("admit while locked: %v, want ErrStore and a LockedError naming the busy timeout", err)
	}
	deadline, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	_, err = long.Admit(deadline, a)
	if !errors.Is(err, guard.ErrStore) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "while waiting for the store's write lock") {
		t.Fatalf("admit while locked, with a deadline: %v, want ErrStore saying what it waited for", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("refusals took %v", d)
	}
	if _, err := conn.ExecContext(bg, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if v, err := long.Admit(bg, a); err != nil || !v.Admitted {
			t.Fatalf("admit after unlock: %+v, %v", v, err)
		}
	}
	u, _ := long.Spent(bg, c[0], a.Budgets)
	if u[0].Spent != 1 {
		t.Fatalf("spent %d, want 1", u[0].Spent)
	}
}

// Handles opening one new file at once all open it: SQLite may answer
// the race to switch it to WAL mode and create the schema with an
// immediate SQLITE_BUSY, which Open must wait out, not report. (Without
// the retry about 1 opening in 100 fails: 300 rounds of 8 fail nearly
// always.)
func TestOpenNewFileAtOnce(t *testing.T) {
	for i := range 300 {
		path := filepath.Join(t.TempDir(), "store.db")
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				s, err := Open(bg, path, Options{})
				if err == nil {
					err = s.Close()
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: open: %v", i, err)
			}
		}
	}
}
