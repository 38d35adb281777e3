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
// The file is created with mode 0600; [Open] refuses an existing file that
// others may write, and a file whose schema version it does not know.
// Expired replay keys and verdicts, and counters and revocations past the
// family's Expires, are removed a bounded batch at a time during
// admissions.
//
// SQLite's locking relies on the host's file locks: do not put the file
// on a network filesystem (NFS, SMB), where those locks are unreliable
// and two hosts can both take the last unit of a budget. For a fleet use
// package redisstore.
package sqlitestore
