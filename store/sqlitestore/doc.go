// Package sqlitestore is a guard.Store in one SQLite file (pure Go,
// modernc.org/sqlite; no cgo), shared safely by any number of processes
// on one host.
//
// Every write is one transaction opened with BEGIN IMMEDIATE, so writers
// queue for the file's write lock (waiting at most Options.BusyTimeout,
// or until the caller's context ends) and an admission reads and writes
// under that one lock: no two processes can both take the last unit of a
// budget. A write that gives up fails with a *LockedError (or the
// context's error) as its cause, and the caller refuses. [Open] takes the
// lock only to create the schema in an empty file: opening an existing
// store reads its version without waiting for writers. The file is in WAL
// mode with synchronous=FULL by default: a step is on disk, and survives
// a power loss, when it returns. With Options.Sync = [SyncNormal] a step
// survives a crash of the process but the last steps before a power loss
// may be lost (SQLite's WAL with synchronous=NORMAL), which can let
// already-spent budget be spent again.
//
// The file is created with mode 0600; [Open] refuses a file whose schema
// version it does not know.
//
// Other local users must not be able to rewind the store: whoever can
// write its write-ahead log (-wal) or shared-memory index (-shm) can roll
// the log back between two calls, and whoever can plant a rollback
// journal (-journal) has SQLite replay it into the file, so that a budget
// already spent is allowed again. [Open] therefore refuses, with a
// [*FileError] matching [ErrUnsafeFile] that names the file, a store file
// or sibling that belongs to another user or that group or others may
// write, a sibling that is a link, a link at the store's name that
// belongs to another user, and a directory that belongs to another user
// (other than root) or that others may write without the sticky bit (a
// sticky directory such as /tmp is accepted: others cannot remove or
// replace our files in it). Because others may still create new names in
// a sticky directory, [Open] creates the three siblings itself before
// SQLite opens them (exclusively, mode 0600, never following a link),
// its connections keep them when they close (SQLITE_FCNTL_PERSIST_WAL),
// and it holds them open until SQLite has opened the store, then refuses
// if the file at any of those names is no longer the one it held. A new
// store is built in a new file beside its name and linked there
// complete, so no opener sees it empty (SQLite removes the journal of an
// empty file, freeing its name). Owners are not checked where files have
// no user id (Windows): there only the mode bits are.
// Expired replay keys and verdicts, and counters and revocations past the
// family's Expires, are removed a bounded batch at a time during
// admissions.
//
// SQLite's locking relies on the host's file locks: do not put the file
// on a network filesystem (NFS, SMB), where those locks are unreliable
// and two hosts can both take the last unit of a budget. For a fleet use
// package redisstore.
package sqlitestore
