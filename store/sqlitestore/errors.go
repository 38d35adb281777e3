package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tickettool/tickettool/guard"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// LockedError is the cause of a step that gave up waiting for the file's
// write lock, held by another process (or another Store on the file), after
// the busy timeout. Like every store failure it refuses; a caller may
// retry later.
type LockedError struct {
	Wait time.Duration // the busy timeout the step waited
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("another process held the store's write lock longer than the busy timeout (%v)", e.Wait)
}

// failed returns the *guard.StoreError of op failing with err: a lock
// wait that ran out (SQLITE_BUSY) becomes a *LockedError naming the busy
// timeout.
func (s *Store) failed(op string, err error) error {
	var se *sqlite.Error
	switch {
	case errors.Is(err, guard.ErrStore):
		return err
	case errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY:
		err = &LockedError{Wait: s.busy}
	}
	return guard.Failed("sqlitestore", op, err)
}

// lockWait returns the error of a write transaction that could not begin:
// when the context ended first, it says that the step was waiting for the
// write lock.
func lockWait(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("the context ended while waiting for the store's write lock (another writer holds it): %w", ctx.Err())
	}
	return err
}
