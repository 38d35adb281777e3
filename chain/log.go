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
// Append is safe for concurrent use by many goroutines (a mutex) and by
// many processes, each with its own Log (an exclusive flock(2) on the file
// for the whole read-tail, write, fsync step). The file is opened with
// O_APPEND, so earlier bytes are never rewritten, and every append is
// fsynced before Append returns. A Log caches the tail it last saw; under
// the lock it compares the file's size with the cache, checks every record
// other writers appended since (signature, sequence, link, time), and
// re-reads the tail as [Open] does when the file shrank or its last record
// changed, so concurrent writers never fork the chain.
type Log struct {
	mu     sync.Mutex
	f      *os.File // nil once closed
	key    *key.Signing
	ver    *key.Verifying // key.Verifying(), for replaying records
	origin string

	valid   bool     // the fields below describe the file while it is size bytes long
	size    int64    // bytes
	count   int64    // records
	head    [32]byte // chain hash of the last record, or OriginHash
	last    int64    // milliseconds of the last record, -1 when empty
	tailLen int64    // bytes of the last record, 0 when empty

	err error // sticky: after a failed fsync nothing more is appended
}

// Open opens the log at path for appending with the signing key for
// origin, creating it (mode 0600: receipts name tools, paths and hosts;
// hand auditors a copy) when absent and syncing its directory.
//
// Open's cost does not grow with the log: under the lock it reads the
// first record and at most the last 48 KiB (three times [MaxRecordBytes]),
// and checks what an append depends on:
//
//   - record 0 is one canonical record that verifies under the key, with
//     seq 0 and prev bound to origin: the file is a receipt log (else a
//     *[BreakError] matching [ErrNotLog]), signed with this key (else a
//     *[KeyError] when no record verifies under it) for this origin;
//   - the file ends with a record that verifies under the key and links to
//     the record before it (that record's SHA-256 is its prev, its seq one
//     less, its time no later), so the next record chains to the real head
//     and gets the next seq;
//   - nothing follows that record: a torn tail is a *BreakError matching
//     [ErrTorn] (run [Repair]), anything else a break (investigate).
//
// It does not check the records in between (their signatures, links,
// sequence and times, or that they are as many as the last seq says): a
// log broken in its middle opens and is appended to, and [Verify] (the
// CLI's "receipt verify") reports the break. Whenever the quick check
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

// Append appends one record and returns it as written. See AppendBatch.
func (l *Log) Append(r Record, now time.Time) (Record, error) {
	out, err := l.AppendBatch([]Record{r}, now)
	if err != nil {
		return Record{}, err
	}
	return out[0], nil
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
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil, ErrClosed
	}
	if l.err != nil {
		return nil, l.err
	}
	if err := lockFile(l.f, true); err != nil {
		return nil, fileErr("lock log", l.f.Name(), err)
	}
	defer unlockFile(l.f)
	if err := l.refresh(); err != nil {
		return nil, err
	}
	t := now.UnixMilli()
	if t < l.last {
		if t < l.last-MaxClockStepBack.Milliseconds() {
			return nil, fmt.Errorf("%w: now %s, last record %s", ErrClockBackwards,
				now.UTC().Format(timeFormat), time.UnixMilli(l.last).UTC().Format(timeFormat))
		}
		t = l.last
	}
	if t < 0 || t > MaxTimeMillis {
		return nil, fmt.Errorf("chain: time %s is out of range", now.UTC().Format(time.RFC3339))
	}
	out := make([]Record, len(rs))
	var buf []byte
	var tailLen int64
	head := l.head
	for i, r := range rs {
		r.Seq, r.Time, r.Prev, r.Alg, r.Sig = uint64(l.count)+uint64(i), time.UnixMilli(t).UTC(), head, l.key.Alg(), nil
		input, err := r.SigningInput()
		if err != nil && len(rs) > 1 {
			return nil, fmt.Errorf("%w (record %d of the batch)", err, i)
		} else if err != nil {
			return nil, err
		}
		if r.Sig, err = l.key.Sign(input); err != nil {
			return nil, err
		}
		b, err := withSig(input[len(recordDomain):], r.Sig)
		if err != nil {
			return nil, fmt.Errorf("%w: %v (record %d of the batch)", ErrMalformed, err, i)
		}
		head = sha256.Sum256(b)
		buf = append(buf, b...)
		out[i] = r
		tailLen = int64(len(b))
	}
	if _, err := l.f.Write(buf); err != nil {
		l.valid = false // a partial write leaves a torn tail; rescan finds it
		return nil, fileErr("append to log", l.f.Name(), err)
	}
	if err := l.f.Sync(); err != nil {
		l.valid = false
		l.err = fmt.Errorf("%w (appends stopped: reopen the log and verify it)", fileErr("fsync log", l.f.Name(), err))
		return nil, l.err
	}
	l.size += int64(len(buf))
	l.count += int64(len(rs))
	l.head, l.last, l.tailLen = head, t, tailLen
	return out, nil
}

// Close closes the log file. Appends after Close return [ErrClosed].
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
