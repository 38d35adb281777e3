package sqlitestore

import "time"

// Limits and defaults. All numeric policy of the package lives here.
const (
	// DefaultBusyTimeout is how long a write waits for another process's
	// write to finish when Options.BusyTimeout is zero.
	DefaultBusyTimeout = 5 * time.Second

	// SchemaVersion is the version of the schema this package writes and
	// reads; [Open] refuses a file of any other version.
	SchemaVersion = 1

	// walSizeLimit is the size the write-ahead log is cut back to when a
	// checkpoint restarts it (PRAGMA journal_size_limit), above the
	// 1000 pages (4 MiB) after which SQLite checkpoints, so that the
	// cut is rare while the store runs; the last connection to close cuts
	// it to nothing.
	walSizeLimit = 8 << 20

	// setUpRetry is how long Open waits before it tries again to set up
	// a file SQLite reported busy without waiting.
	setUpRetry = 5 * time.Millisecond

	// fileMode is the mode of a store file Open creates: only its owner
	// reads or writes budgets and revocations.
	fileMode = 0o600
)
