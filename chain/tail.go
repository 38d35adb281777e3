package chain

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/tickettool/tickettool/internal/wire"
)

// load sets the cache from the file as it is (size bytes); the lock is
// held. For a log that ends cleanly it reads a bounded amount, whatever
// the log's length: the first record (loadTail). Whenever that does not
// account for the file it falls back to rescan, which reads the whole file
// to say exactly where the problem is: a slow path only for logs that
// Append refuses anyway.
func (l *Log) load(size int64) error {
	if err := l.loadTail(size); err == nil {
		return nil
	}
	return l.rescan(size)
}

// loadTail checks what a writer needs before appending, reading at most
// MaxRecordBytes at the start of the file and tailWindow at its end
// (usually quickRead at each):
//
//   - record 0 is one canonical record with seq 0, prev bound to the
//     origin and the key's algorithm (so the file is a log, for this
//     origin);
//   - the last record L found in the tail is canonical, signed under the
//     key (so the log is the key's), and links to the record that ends
//     where it starts (that record's SHA-256 is L's prev, its seq is L's
//     minus one, its time no later), or is record 0 itself;
//   - nothing follows L: any byte after it (a torn tail, damage) is an
//     error here, and rescan classifies it.
//
// It does not check record 0's signature (unless it is L) nor the records
// between record 0 and L's predecessor (their signatures, links and
// times, or that L's seq counts them): that is Verify's. The cache's
// count is L's seq plus one.
func (l *Log) loadTail(size int64) error {
	l.valid = false
	if size == 0 {
		l.valid, l.size, l.count, l.head, l.last, l.tailLen = true, 0, 0, OriginHash(l.origin), -1, 0
		return nil
	}
	first, err := l.first(size)
	if err != nil {
		return err
	}
	if size == int64(len(first)) { // record 0 is the last: check it whole
		v := newReplayer(l.ver, l.origin)
		v.merkle = false
		if err := v.add(first, 0); err != nil {
			return err
		}
		l.valid, l.size, l.count, l.head, l.last, l.tailLen = true, size, 1, v.head, v.last, size
		return nil
	}
	// A short read finds the last record and the one before it when they
	// are short, as they usually are; else the whole window.
	for _, w := range []int64{quickRead, tailWindow} {
		start := max(0, size-w)
		win := make([]byte, size-start)
		if _, err := l.f.ReadAt(win, start); err != nil {
			return fmt.Errorf("chain: read log: %w", readReason(err))
		}
		j, n, rec, ok := l.lastRecord(win, start)
		if ok && j+n == len(win) && rec.Seq < 1<<62 {
			l.valid, l.size, l.count = true, size, int64(rec.Seq)+1
			l.head, l.last, l.tailLen = sha256.Sum256(win[j:j+n]), rec.Time.UnixMilli(), int64(n)
			return nil
		}
		if start == 0 {
			break
		}
	}
	return errNoTail
}

// first reads record 0 and checks what binds the file to this log: one
// canonical record, seq 0, prev the origin hash, alg the key's, and its
// signature under the key (a forged first record would otherwise carry a
// log of other records under this origin).
func (l *Log) first(size int64) ([]byte, error) {
	b := make([]byte, min(size, MaxRecordBytes))
	if _, err := l.f.ReadAt(b[:min(len(b), quickRead)], 0); err != nil {
		return nil, fmt.Errorf("chain: read log: %w", readReason(err))
	}
	n, err := wire.ItemLen(b[:min(len(b), quickRead)], wire.RecordLimits())
	if err != nil && len(b) > quickRead { // a long record 0
		if _, err := l.f.ReadAt(b, 0); err != nil {
			return nil, fmt.Errorf("chain: read log: %w", readReason(err))
		}
		n, err = wire.ItemLen(b, wire.RecordLimits())
	}
	if err != nil {
		return nil, err
	}
	rec, input, err := decode(b[:n])
	switch {
	case err != nil:
		return nil, err
	case rec.Seq != 0 || rec.Prev != OriginHash(l.origin) || rec.Alg != l.ver.Alg():
		return nil, errNoTail
	case !l.ver.Verify(input, rec.Sig): // a forged first record: the full scan names it
		return nil, errNoTail
	}
	return b[:n], nil
}

// errNoTail says that loadTail found no last record that ends the file.
var errNoTail = errors.New("chain: no verified last record at the end of the log")

// lastRecord returns the last record in win (the file from offset start
// to its end) that is one canonical record signed under the key and
// linked (see linked): its index j in win, its length and the record. It
// tries, from the end backwards, only offsets where a record's first
// bytes stand, from 2*MaxRecordBytes before the end (a last record and a
// torn tail after it are each shorter than MaxRecordBytes + 1).
func (l *Log) lastRecord(win []byte, start int64) (int, int, Record, bool) {
	lo := max(0, len(win)-2*MaxRecordBytes)
	for j := len(win) - 3; j >= lo; j-- {
		if !recordLike(win[j:]) {
			continue
		}
		n, err := wire.ItemLen(win[j:min(len(win), j+MaxRecordBytes)], wire.RecordLimits())
		if err != nil {
			continue
		}
		rec, input, err := decode(win[j : j+n])
		if err != nil || rec.Alg != l.ver.Alg() || !l.ver.Verify(input, rec.Sig) {
			continue
		}
		if l.linked(win, start, j, rec) {
			return j, n, rec, true
		}
	}
	return 0, 0, Record{}, false
}

// linked reports whether rec, read at index j of win (file offset
// start+j), is record 0 of this origin, or the record that ends at j is
// its predecessor: SHA-256 of its bytes is rec's prev, it decodes, its seq
// is rec's minus one and its time is no later than rec's.
func (l *Log) linked(win []byte, start int64, j int, rec Record) bool {
	if rec.Seq == 0 {
		return start+int64(j) == 0 && rec.Prev == OriginHash(l.origin)
	}
	for k := j - 1; k >= max(0, j-MaxRecordBytes); k-- {
		if !recordLike(win[k:j]) {
			continue
		}
		item := win[k:j]
		if n, err := wire.ItemLen(item, wire.RecordLimits()); err != nil || n != len(item) {
			continue
		}
		if sha256.Sum256(item) != rec.Prev {
			continue
		}
		p, _, err := decode(item)
		return err == nil && p.Seq+1 == rec.Seq && p.Time.UnixMilli() <= rec.Time.UnixMilli()
	}
	return false
}

// recordLike reports whether b starts as a record does: a map head of 6 to
// 17 pairs, key 1 (seq), an unsigned integer head (FORMAT.md §2).
func recordLike(b []byte) bool {
	return len(b) >= 3 && b[0] >= 0xa6 && b[0] <= 0xb1 && b[1] == 0x01 && b[2]>>5 == 0
}
