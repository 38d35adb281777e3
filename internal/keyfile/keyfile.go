// Package keyfile writes secret files the only safe way: created
// exclusively (never overwriting, never following a planted file) with
// mode 0600 from their first byte, synced before success is reported.
package keyfile

import (
	"errors"
	"fmt"
	"os"
)

// ErrExists is returned when the path already exists; nothing is written.
var ErrExists = errors.New("keyfile: file already exists")

// WriteNew creates path with the given mode (0600 for secrets, 0644 for
// public keys) and writes data to it. It fails if path exists. On a write
// error the partial file is removed.
func WriteNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%w: %s", ErrExists, path)
		}
		return fmt.Errorf("keyfile: create %s: %w", path, err)
	}
	// The umask may have narrowed mode; it must never have widened it, and
	// a secret must be exactly 0600.
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("keyfile: chmod %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("keyfile: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("keyfile: sync %s: %w", path, err)
	}
	return f.Close()
}
