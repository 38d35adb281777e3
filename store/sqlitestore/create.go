package sqlitestore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tickettool/tickettool/guard"
)

// createStore makes the store file at path, unless a file is there: it
// builds the store (schema, WAL mode, checkpointed) in a new file of mode
// 0600 beside it and links that file to path, which never replaces a
// file. So a store file appears at its name only complete, never empty:
// SQLite removes, unread, a rollback journal beside an empty file, which
// would leave the name free for another user between two opens, and
// processes creating one store at once would race for its schema.
func createStore(ctx context.Context, path string, o Options) error {
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // open checks what is there
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".new-*")
	if err != nil {
		return guard.Failed("sqlitestore", "create", err)
	}
	tmp := f.Name()
	err = f.Close()
	defer func() {
		os.Remove(tmp)
		for _, s := range siblings {
			os.Remove(tmp + s)
		}
	}()
	if err != nil {
		return guard.Failed("sqlitestore", "create", err)
	}
	s, err := open(ctx, tmp, o)
	if err != nil {
		return err
	}
	var busy, frames, done int
	err = s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err == nil && busy != 0 {
		err = errors.New("the new store's checkpoint did not complete")
	}
	if err != nil {
		return guard.Failed("sqlitestore", "create", err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return guard.Failed("sqlitestore", "create", err)
	}
	return nil
}
