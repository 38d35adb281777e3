package sqlitestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrUnsafeFile matches (errors.Is) every refusal to open a store whose
// file, write-ahead log, shared-memory index, rollback journal or
// directory another local user could write or replace. Whoever can write
// any of them can rewind the store: rolling the write-ahead log back
// between calls, or planting a rollback journal SQLite replays into the
// file, re-allows budgets already spent.
var ErrUnsafeFile = errors.New("sqlitestore: unsafe store file")

// FileError is [Open]'s refusal of one file or directory; it matches
// [ErrUnsafeFile].
type FileError struct {
	Path    string // the file or directory refused
	Problem string // what is wrong with it, and what to do
}

func (e *FileError) Error() string { return "sqlitestore: " + e.Path + " " + e.Problem }

// Is reports whether target is [ErrUnsafeFile].
func (e *FileError) Is(target error) bool { return target == ErrUnsafeFile }

// testHookClaimed, if set, runs between claimSiblings and SQLite's open.
var testHookClaimed func(path string)

// siblings are the suffixes of the files SQLite keeps beside the store
// file: the write-ahead log, its shared-memory index and the rollback
// journal, which SQLite replays into the file when it finds one "hot".
var siblings = []string{"-wal", "-shm", "-journal"}

// checkDir refuses a directory in which another user could replace or
// remove the store's files: one owned by another user (other than root,
// who can do so anyway), or one others may write without the sticky bit.
// With the sticky bit others may still create names in it, which
// [claimSiblings] takes first.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return &FileError{Path: dir, Problem: fmt.Sprintf("(the store's directory) cannot be read: %v", errors.Unwrap(err))}
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() && uid != 0 {
		return &FileError{Path: dir, Problem: fmt.Sprintf(
			"(the store's directory) belongs to uid %d: its owner can replace the store's files; keep the store in a directory of yours", uid)}
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return &FileError{Path: dir, Problem: fmt.Sprintf(
			"(the store's directory) is writable by others without the sticky bit (mode %#o): anyone can replace the store's files; chmod go-w it or keep the store in a directory of yours",
			fi.Mode().Perm())}
	}
	return nil
}

// checkOwned refuses a file that is not a regular file (a link, too, is
// refused: fi comes from Lstat), that belongs to another user, or that
// others may write.
func checkOwned(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &FileError{Path: path, Problem: "is not a regular file; remove it"}
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return &FileError{Path: path, Problem: fmt.Sprintf(
			"belongs to uid %d, not to this process's uid %d: its owner can rewind the store; remove it if it is stale, and keep the store in a directory only you can write",
			uid, os.Geteuid())}
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return &FileError{Path: path, Problem: fmt.Sprintf(
			"is writable by others (mode %#o): anyone who can write it can reset budgets; chmod 600 it", fi.Mode().Perm())}
	}
	return nil
}

// claim is a sibling file as Open found or made it before SQLite opened
// it, held open until after SQLite has opened the store: while it is held
// its inode cannot be reused, so the file at its name afterwards is the
// same file only if it was never replaced. (The shared-memory index is
// held longer: see shmFile.)
type claim struct {
	path string
	fi   fs.FileInfo
	f    *os.File // nil: not held
}

// claimSibling creates the sibling file at path exclusively, mode 0600,
// without following a link, so that no one else can create it first; if
// it exists it must pass checkOwned. Either way it returns it, held open
// if hold.
func claimSibling(path string, hold bool) (claim, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, fileMode)
	if errors.Is(err, fs.ErrExist) && !hold {
		fi, err := os.Lstat(path)
		if err != nil {
			return claim{}, &FileError{Path: path, Problem: fmt.Sprintf("cannot be read: %v", errors.Unwrap(err))}
		}
		return claim{path: path, fi: fi}, checkOwned(path, fi)
	}
	if errors.Is(err, fs.ErrExist) {
		// O_NONBLOCK: opening a planted FIFO must not hang; checkOwned
		// refuses it.
		f, err = os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	}
	if err != nil {
		if errors.Is(err, errLoop) {
			return claim{}, &FileError{Path: path, Problem: "is not a regular file; remove it"}
		}
		return claim{}, &FileError{Path: path, Problem: fmt.Sprintf("cannot be opened: %v", errors.Unwrap(err))}
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkOwned(path, fi)
	}
	if err != nil || !hold {
		f.Close()
		return claim{path: path, fi: fi}, err
	}
	return claim{path, fi, f}, nil
}

// same reports whether the file at c's name is still the one claimed.
func (c claim) same() (bool, error) {
	now, err := os.Lstat(c.path)
	if err != nil {
		return false, err
	}
	return os.SameFile(c.fi, now), nil
}

// claimSiblings claims the write-ahead log, its index and the rollback
// journal of the store file at path before SQLite opens them. Store
// connections persist the write-ahead log and its index (they never
// remove them), so once claimed they stay ours. The caller closes the
// claims, and releases the index when the store closes.
func claimSiblings(path string) ([]claim, *shmFile, error) {
	var got []claim
	var shm *shmFile
	for _, s := range siblings {
		var c claim
		var err error
		if s == "-shm" {
			if shm, err = holdShm(path + s); err == nil {
				c = claim{path: path + s, fi: shm.fi}
			}
		} else {
			c, err = claimSibling(path+s, true)
		}
		if err != nil {
			closeClaims(got)
			shm.release()
			return nil, nil, err
		}
		got = append(got, c)
	}
	return got, shm, nil
}

func closeClaims(cs []claim) {
	for _, c := range cs {
		if c.f != nil {
			c.f.Close()
		}
	}
}

// recheckSiblings checks, once SQLite holds the store open, that the
// files at the siblings' names are still the ones claimSiblings claimed
// and holds: SQLite opened them by name, so one replaced in between (and
// perhaps already played back, or chowned to the store's owner by SQLite
// running as root) shows here. Only the rollback journal of a store file
// that was empty when claimed may be gone or new, as SQLite removes it
// then without reading it (and another process of ours opening the new
// store at once claims it again); it is claimed again, and must pass
// checkOwned.
func recheckSiblings(cs []claim, wasEmpty bool) error {
	for i, c := range cs {
		same, err := c.same()
		if (err != nil && errors.Is(err, fs.ErrNotExist) || err == nil && !same) && i == 2 && wasEmpty {
			again, err := claimSibling(c.path, true)
			if err != nil {
				return err
			}
			again.f.Close()
			continue
		}
		if err != nil {
			return &FileError{Path: c.path, Problem: "disappeared while the store was being opened: another process removed it; open the store again"}
		}
		if !same {
			if fi, err := os.Lstat(c.path); err == nil {
				if err := checkOwned(c.path, fi); err != nil {
					return err
				}
			}
			return &FileError{Path: c.path, Problem: "was replaced while the store was being opened; open the store again"}
		}
	}
	return nil
}

// resolve returns the file that path names once links are followed, as
// SQLite places its sibling files beside that file. A link at path must
// belong to this process's user.
func resolve(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("sqlitestore: %s cannot be read: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if uid, ok := owner(fi); ok && uid != os.Geteuid() {
			return "", &FileError{Path: path, Problem: fmt.Sprintf("is a link belonging to uid %d: its owner chooses which file is the store; remove it", uid)}
		}
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("sqlitestore: %s cannot be resolved: %w", path, err)
	}
	return real, nil
}
