package chain

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tickettool/tickettool/key"
)

// Log appends records to a log file: an RFC 8742 CBOR sequence of records,
// each chained to the one before it and signed.
//
// Append is safe for concurrent use by many goroutines (which share writes
// and fsyncs: group commit, see [Log.Append]) and by many processes, each
// with its own Log (an exclusive flock(2) on the file for the read-tail
// and write step). The file is opened with O_APPEND, so earlier bytes are
// never rewritten, and every append is fsynced before Append returns; the
// fsync runs after the lock is released, so that the next batch is written
// while it runs (an fsync makes every byte written before it durable, the
// other writers' too). A Log caches the tail it last saw; under
// the lock it compares the file's size with the cache, checks every record
// other writers appended since (signature, sequence, link, time), and
// re-reads the tail as [Open] does when the file shrank or its last record
// changed, so concurrent writers never fork the chain.
type Log struct {
	mu sync.Mutex
	f  *os.File // nil once closed
	// syncErr, when set, fails every fsync after it (for tests: no
	// unprivileged process can make fsync fail on Linux).
	syncErr func() error
	key     *key.Signing
	ver     *key.Verifying // key.Verifying(), for replaying records
	origin  string

	valid   bool     // the fields below describe the file while it is size bytes long
	size    int64    // bytes
	count   int64    // records
	head    [32]byte // chain hash of the last record, or OriginHash
	last    int64    // milliseconds of the last record, -1 when empty
	tailLen int64    // bytes of the last record, 0 when empty

	syncMu sync.Mutex // held from a batch's write (under mu) through its fsync
	errMu  sync.Mutex
	err    error // sticky: after a failed fsync nothing more is appended

	qmu     sync.Mutex // guards queue and leading
	queue   []*entry   // Append calls waiting for a write, in arrival order
	leading bool       // an Append is writing for the queue
}

// Open opens the log at path for appending with the signing key for
// origin, creating it (mode 0600: receipts name tools, paths and hosts;
// hand auditors a copy) when absent and syncing its directory.
//
// Open's cost does not grow with the log: under the lock it reads the
// first record and the end of the file (4 KiB at each end for short
// records; at most [MaxRecordBytes] at the start and 48 KiB at the end),
// and checks what an append depends on:
//
//   - record 0 is one canonical record with seq 0, prev bound to origin,
//     the key's algorithm and a signature under the key: the file is a
//     receipt log (else a *[BreakError] matching [ErrNotLog]) of this key
//     for this origin;
//   - the file ends with a record that verifies under the key (else, when
//     no record verifies under it, a *[KeyError]: another key's log) and
//     links to the record before it (that record's SHA-256 is its prev,
//     its seq one less, its time no later), so the next record chains to
//     the real head and gets the next seq;
//   - nothing follows that record: a torn tail is a *BreakError matching
//     [ErrTorn] (run [Repair]), anything else a break (investigate).
//
// It does not check the records in between (their signatures, links, sequence and
// times, or that they are as many as the last seq says): a log broken in
// its middle opens and is appended to, and [Verify] (the CLI's "receipt
// verify") reports the break. Whenever the quick check
// fails, Open reads the whole file to report the break at the first item
// that is not a canonical record, as Verify's scan does.
func Open(path string, k *key.Signing, origin string) (*Log, error) {
	if err := checkSigning(k); err != nil {
		return nil, err
	}
	if err := checkOrigin(origin); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	created := err == nil
	if errors.Is(err, os.ErrExist) {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	}
	if err != nil {
		return nil, fileErr("open log", path, err)
	}
	l := &Log{f: f, key: k, ver: k.Verifying(), origin: origin, last: -1}
	if err := l.open(filepath.Dir(path), created); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

func (l *Log) open(dir string, created bool) error {
	if fi, err := l.f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("chain: open log %s: not a regular file", l.f.Name())
	}
	if created {
		d, err := os.Open(dir)
		if err == nil {
			err = d.Sync()
			d.Close()
		}
		if err != nil {
			return fileErr("sync log directory", dir, err)
		}
	}
	if err := lockFile(l.f, true); err != nil {
		return fileErr("lock log", l.f.Name(), err)
	}
	defer unlockFile(l.f)
	return l.refresh()
}

// AppendBatch appends records (at most [MaxBatch]) in one write and one
// fsync, and returns them as written. Each record's Seq, Time, Prev, Alg
// and Sig are set by the log (whatever the caller put there): Time is now
// in whole milliseconds, or the last record's time when now lies before it
// by at most [MaxClockStepBack] (further back: ErrClockBackwards), so time
// never goes backwards in the log. All records of a batch share one time.
//
// When AppendBatch returns nil every record is durable (written and
// fsynced). On an error no record is acknowledged, though a crash or a
// failed fsync may leave some of them in the file. After a failed fsync
// the [Log] refuses every further append: reopen it and [Verify]. A log that
// ends in a torn tail is refused (ErrTorn) until [Repair].
func (l *Log) AppendBatch(rs []Record, now time.Time) ([]Record, error) {
	if len(rs) == 0 || len(rs) > MaxBatch {
		return nil, fmt.Errorf("chain: a batch holds 1 to %d records, not %d", MaxBatch, len(rs))
	}
	es := make([]*entry, len(rs))
	for i, r := range rs {
		es[i] = &entry{r: r, now: now}
	}
	if err := l.commit(es, true, nil); err != nil {
		return nil, err
	}
	out := make([]Record, len(rs))
	for i, e := range es {
		out[i] = e.out
	}
	return out, nil
}

// commit writes the entries in one write and makes them durable with one
// fsync. With all, a record that cannot be written fails them all
// (AppendBatch); without, it fails its own entry only (e.err) and the
// others are written. The error returned is for every entry that has
// none. written, when not nil, is called once the entries are written (or
// not) and before the fsync: the next batch can be written while this one
// syncs (fsyncs still run in write order, and a batch is acknowledged only
// when every fsync before its own succeeded).
func (l *Log) commit(es []*entry, all bool, written func()) error {
	l.mu.Lock()
	n, err := l.stage(es, all)
	if err != nil || n == 0 {
		l.mu.Unlock()
		if written != nil {
			written()
		}
		return err
	}
	l.syncMu.Lock() // taken in write order, before the next batch can write
	defer l.syncMu.Unlock()
	l.mu.Unlock()
	if written != nil {
		written()
	}
	if err := l.sync(); err != nil {
		return l.stop(fmt.Errorf("%w (appends stopped: reopen the log and verify it)", fileErr("fsync log", l.f.Name(), err)))
	}
	return l.stopped() // an earlier batch's fsync failed: this one's records follow lost ones
}

// stage writes the entries after the records written so far (not yet
// necessarily synced) and returns the bytes written; l.mu is held.
func (l *Log) stage(es []*entry, all bool) (int, error) {
	if l.f == nil {
		return 0, ErrClosed
	}
	if err := l.stopped(); err != nil {
		return 0, err
	}
	if err := lockFile(l.f, true); err != nil {
		return 0, fileErr("lock log", l.f.Name(), err)
	}
	defer unlockFile(l.f)
	if err := l.refresh(); err != nil {
		return 0, err
	}
	var buf []byte
	count, head, last, tailLen := l.count, l.head, l.last, l.tailLen
	for i, e := range es {
		b, err := l.seal(e, count, head, last)
		if err != nil && all {
			if len(es) > 1 {
				err = fmt.Errorf("%w (record %d of the batch)", err, i)
			}
			return 0, err
		}
		if err != nil {
			e.err = err
			continue
		}
		buf = append(buf, b...)
		count, head, last, tailLen = count+1, sha256.Sum256(b), e.out.Time.UnixMilli(), int64(len(b))
	}
	if len(buf) == 0 {
		return 0, nil
	}
	if _, err := l.f.Write(buf); err != nil {
		l.valid = false // a partial write leaves a torn tail; rescan finds it
		return 0, fileErr("append to log", l.f.Name(), err)
	}
	l.size += int64(len(buf))
	l.count, l.head, l.last, l.tailLen = count, head, last, tailLen
	return len(buf), nil
}

// stop makes err the Log's sticky error (the first one stays) and
// returns it.
func (l *Log) stop(err error) error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	if l.err == nil {
		l.err = err
	}
	return l.err
}

// stopped returns the sticky error, or nil.
func (l *Log) stopped() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

// seal sets e.out to e.r as the log writes it at index seq, after the
// record whose chain hash is head and time last (milliseconds), and
// returns its bytes.
func (l *Log) seal(e *entry, seq int64, head [32]byte, last int64) ([]byte, error) {
	t := e.now.UnixMilli()
	if t < last {
		if t < last-MaxClockStepBack.Milliseconds() {
			return nil, fmt.Errorf("%w: now %s, last record %s", ErrClockBackwards,
				e.now.UTC().Format(timeFormat), time.UnixMilli(last).UTC().Format(timeFormat))
		}
		t = last
	}
	if t < 0 || t > MaxTimeMillis {
		return nil, fmt.Errorf("chain: time %s is out of range", e.now.UTC().Format(time.RFC3339))
	}
	r := e.r
	r.Seq, r.Time, r.Prev, r.Alg, r.Sig = uint64(seq), time.UnixMilli(t).UTC(), head, l.key.Alg(), nil
	u, tail, err := r.unsigned()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if r.Sig, err = l.key.Sign(append([]byte(recordDomain), u...)); err != nil {
		return nil, err
	}
	b, err := withSig(u, tail, r.Sig)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	e.out = r
	return b, nil
}

// Close closes the log file. Appends after Close return [ErrClosed].
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.syncMu.Lock() // wait for the fsync in flight
	defer l.syncMu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// sync fsyncs the log file.
func (l *Log) sync() error {
	if l.syncErr != nil {
		if err := l.syncErr(); err != nil {
			return err
		}
	}
	return l.f.Sync()
}
