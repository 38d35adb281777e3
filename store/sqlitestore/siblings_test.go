//go:build unix

package sqlitestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tickettool/tickettool/guard/storetest"
)

// otherUID is a user id that is not this process's: "another local user".
const otherUID = 4242

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("simulating another user's file needs chown, so root")
	}
}

// plant creates the file at path as another user would: mode and owner
// given, replacing whatever is there.
func plant(t *testing.T, path string, mode os.FileMode, uid int) {
	t.Helper()
	os.Remove(path)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(path, uid, -1); err != nil {
			t.Fatal(err)
		}
	}
}

// wantUnsafe fails unless err is a refusal matching ErrUnsafeFile that
// names path and says what is wrong.
func wantUnsafe(t *testing.T, err error, path, problem string) {
	t.Helper()
	var fe *FileError
	if !errors.Is(err, ErrUnsafeFile) || !errors.As(err, &fe) || fe.Path != path {
		t.Fatalf("open: %v; want a FileError naming %s", err, path)
	}
	if !strings.Contains(err.Error(), problem) || !strings.HasPrefix(err.Error(), "sqlitestore: "+path+" ") {
		t.Fatalf("open: %q; want %q about %s", err, problem, path)
	}
}

// Open refuses a write-ahead log, shared-memory index or rollback journal
// that another user created first, that others may write, or that is a
// link: whoever writes it can rewind the store. A fresh store and an
// existing one alike.
func TestRefusesOthersSibling(t *testing.T) {
	needRoot(t)
	for _, fresh := range []bool{true, false} {
		for _, s := range siblings {
			for _, c := range []struct {
				name    string
				mode    os.FileMode
				uid     int
				problem string
			}{
				{"other user", 0o600, otherUID, "belongs to uid 4242"},
				{"other user, read-only", 0o400, otherUID, "belongs to uid 4242"},
				{"group-writable", 0o620, -1, "writable by others (mode 0620)"},
				{"world-writable", 0o606, -1, "writable by others (mode 0606)"},
				{"link", 0, -1, "not a regular file"},
				{"fifo", os.ModeNamedPipe, -1, "not a regular file"},
			} {
				name := c.name + " " + s
				if fresh {
					name += " fresh"
				}
				t.Run(name, func(t *testing.T) {
					path := filepath.Join(t.TempDir(), "store.db")
					if !fresh {
						st, err := Open(bg, path, Options{})
						if err != nil {
							t.Fatal(err)
						}
						st.Close()
					}
					p := path + s
					switch c.mode {
					case 0:
						os.Remove(p)
						target := filepath.Join(t.TempDir(), "elsewhere")
						os.WriteFile(target, nil, 0o600)
						if err := os.Symlink(target, p); err != nil {
							t.Fatal(err)
						}
					case os.ModeNamedPipe:
						os.Remove(p)
						if err := syscall.Mkfifo(p, 0o600); err != nil {
							t.Fatal(err)
						}
					default:
						plant(t, p, c.mode, c.uid)
					}
					_, err := Open(bg, path, Options{})
					wantUnsafe(t, err, p, c.problem)
				})
			}
		}
	}
}

// Open refuses a store file of another user, even one only its owner may
// write.
func TestRefusesOthersFile(t *testing.T) {
	needRoot(t)
	path := filepath.Join(t.TempDir(), "store.db")
	st, err := Open(bg, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.Chown(path, otherUID, -1); err != nil {
		t.Fatal(err)
	}
	_, err = Open(bg, path, Options{})
	wantUnsafe(t, err, path, "belongs to uid 4242")
}

// Open refuses a directory others may write without the sticky bit, and a
// directory of another user; in a sticky world-writable directory (like
// /tmp) it opens a store whose files are its own, and still refuses a
// sibling another user created first.
func TestStoreDirectory(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		name    string
		mode    os.FileMode
		uid     int
		problem string // "" opens
	}{
		{"world-writable", 0o777, -1, "writable by others without the sticky bit (mode 0777)"},
		{"group-writable", 0o770, -1, "writable by others without the sticky bit (mode 0770)"},
		{"other user's", 0o755, otherUID, "belongs to uid 4242"},
		{"other user's, sticky", 0o1777, otherUID, "belongs to uid 4242"},
		{"sticky", 0o1777, -1, ""},
		{"root's, sticky", 0o1777, 0, ""},
		{"ours", 0o700, -1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "shared")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, c.mode|os.ModeSticky&c.mode); err != nil {
				t.Fatal(err)
			}
			if c.mode&0o1000 != 0 {
				if err := os.Chmod(dir, c.mode&0o777|os.ModeSticky); err != nil {
					t.Fatal(err)
				}
			}
			if c.uid >= 0 {
				if err := os.Chown(dir, c.uid, -1); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "store.db")
			st, err := Open(bg, path, Options{})
			if c.problem != "" {
				wantUnsafe(t, err, dir, c.problem)
				if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a refused open created %s", path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			admitOnce(t, st)
			st.Close()
			for _, s := range append([]string{""}, siblings...) {
				fi, err := os.Lstat(path + s)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkOwned(path+s, fi); err != nil {
					t.Error(err)
				}
			}
			if c.mode&0o1000 == 0 {
				return
			}
			plant(t, path+"-shm", 0o600, otherUID)
			_, err = Open(bg, path, Options{})
			wantUnsafe(t, err, path+"-shm", "belongs to uid 4242")
		})
	}
}

func admitOnce(t *testing.T, st *Store) {
	t.Helper()
	c := storetest.Chain("a", 1)
	if _, err := st.Admit(bg, storetest.Admission(c, storetest.Base(), storetest.Calls(c, 0, 1))); err != nil {
		t.Fatal(err)
	}
}

// The store's connections never remove the write-ahead log, its index or
// the rollback journal: a name Open claimed stays claimed, not left for
// another user to create between two opens. The last to close empties
// the write-ahead log, so that it does not grow from open to open.
func TestSiblingsPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	for range 3 {
		st, err := Open(bg, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		admitOnce(t, st)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		for _, s := range siblings {
			fi, err := os.Lstat(path + s)
			if err != nil {
				t.Fatalf("after close: %v", err)
			}
			if s == "-wal" && fi.Size() != 0 {
				t.Errorf("after close, the write-ahead log holds %d bytes", fi.Size())
			}
		}
	}
}

// A sibling replaced between Open's claim and SQLite's open (a race with
// another user, or with a process removing it) is refused once SQLite
// holds the store open: that of an existing store, and that of the new
// file Open builds a store in before linking it to its name.
func TestSiblingReplacedDuringOpen(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		name, suffix string
		uid          int
		problem      string
	}{
		// SQLite running as root chowns a write-ahead log or index it
		// opens to the store file's owner: only the file's identity
		// shows that it was replaced.
		{"wal by another user", "-wal", otherUID, "was replaced while the store was being opened"},
		{"shm by another user", "-shm", otherUID, "was replaced while the store was being opened"},
		{"wal by us", "-wal", -1, "was replaced while the store was being opened"},
		{"shm by us", "-shm", -1, "was replaced while the store was being opened"},
		{"journal by another user", "-journal", otherUID, "belongs to uid 4242"},
		{"journal by us", "-journal", -1, "was replaced while the store was being opened"},
	} {
		for _, fresh := range []bool{true, false} {
			name := c.name
			if fresh {
				name += " fresh"
			}
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "store.db")
				if !fresh {
					st, err := Open(bg, path, Options{})
					if err != nil {
						t.Fatal(err)
					}
					st.Close()
				}
				var planted string
				testHookClaimed = func(real string) {
					// A new store is built in a new file first.
					if fresh == strings.Contains(filepath.Base(real), ".new-") && planted == "" {
						planted = real + c.suffix
						plant(t, planted, 0o600, c.uid)
					}
				}
				defer func() { testHookClaimed = nil }()
				st, err := Open(bg, path, Options{})
				if fresh && c.suffix == "-journal" {
					// SQLite removes the journal of an empty file unread
					// (so nothing was replayed), and Open claims the name
					// again; the store file appears at its name built.
					if err != nil {
						t.Fatal(err)
					}
					st.Close()
					return
				}
				if planted == "" {
					t.Fatal("nothing planted")
				}
				wantUnsafe(t, err, planted, c.problem)
			})
		}
	}
}

// A new store file appears at its name complete: its schema is written
// and checkpointed into it before it is linked there, so no opener ever
// sees it empty; nothing of the file it was built in remains.
func TestNewStoreBuiltAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.db")
	var seen []string
	testHookClaimed = func(real string) {
		fi, err := os.Stat(real)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, fmt.Sprintf("%v %v", filepath.Base(real) == "store.db", fi.Size() > 0))
	}
	defer func() { testHookClaimed = nil }()
	st, err := Open(bg, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if want := []string{"false false", "true true"}; !slices.Equal(seen, want) {
		t.Errorf("opens (at the store's name, not empty): %v, want %v", seen, want)
	}
	names, _ := os.ReadDir(dir)
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	if want := []string{"store.db", "store.db-journal", "store.db-shm", "store.db-wal"}; !slices.Equal(got, want) {
		t.Errorf("files: %v, want %v", got, want)
	}
}
