// Package keyfile writes secret files the only safe way: created
// exclusively (never overwriting, never following a planted file) with
// mode 0600 from their first byte, synced before success is reported.
package keyfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrExists is returned (wrapped, naming the path) when the path already
// exists; nothing is written.
var ErrExists = errors.New("already exists")

// Errors carry no package prefix: the caller adds its own, once. A
// failure of the file system is an *fs.PathError whose Op names the step
// ("create key file") and whose Err is the system's reason, so that the
// message reads "create key file PATH: permission denied".
func pathErr(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// WriteNew creates the key file path with the given mode (0600 for
// secrets, 0644 for public keys) and writes data to it, as Create does.
func WriteNew(path string, data []byte, mode os.FileMode) error {
	return Create("key file", path, data, mode)
}

// Create creates path with the given mode and writes data to it; what
// names the file in errors ("key file", "discharge file"). It fails if
// path exists, as a file, a directory or a symbolic link (dangling too):
// O_EXCL never follows a link at path, and O_NOFOLLOW says so again where
// the system has it. On a write error the partial file is removed.
func Create(what, path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, mode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s %s %w", what, path, ErrExists)
		}
		return pathErr("create "+what, path, err)
	}
	// The umask may have narrowed mode; it must never have widened it, and
	// a secret must be exactly 0600.
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(path)
		return pathErr("chmod "+what, path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return pathErr("write "+what, path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return pathErr("sync "+what, path, err)
	}
	return f.Close()
}
