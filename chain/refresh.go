package chain

import (
	"crypto/sha256"
	"errors"
	"io"
)

// refresh brings the cache up to date with the file; the lock is held.
func (l *Log) refresh() error {
	fi, err := l.f.Stat()
	if err != nil {
		l.valid = false
		return fileErr("stat log", l.f.Name(), err)
	}
	size := fi.Size()
	if l.valid && size >= l.size && l.tailUnchanged() {
		if size == l.size {
			return nil
		}
		return l.follow(size)
	}
	return l.load(size)
}

// tailUnchanged reports whether the cached last record is still in place,
// byte for byte (one small read), so that a tail rewritten behind the
// Log's back is noticed even when the size did not change.
func (l *Log) tailUnchanged() bool {
	if l.count == 0 {
		return true
	}
	b := make([]byte, l.tailLen)
	if _, err := l.f.ReadAt(b, l.size-l.tailLen); err != nil {
		return false
	}
	return sha256.Sum256(b) == l.head
}

// follow checks the records other writers appended after the cached tail.
func (l *Log) follow(size int64) error {
	l.valid = false
	v := &replayer{key: l.ver, origin: l.origin, count: l.count, head: l.head, last: l.last, atIndex: -1}
	s := newScanner(io.NewSectionReader(l.f, l.size, size-l.size))
	s.off, s.index = l.size, l.count
	for {
		item, off, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := v.add(item, off); err != nil {
			return err
		}
		l.tailLen = int64(len(item))
	}
	l.valid, l.size, l.count, l.head, l.last = true, size, v.count, v.head, v.last
	return nil
}

// rescan reads the whole file: every item must be canonical, the first
// record must verify for the origin, the last must verify and link. A
// break is reported at the first item that is not a record, if one comes
// before it (see firstBreak).
func (l *Log) rescan(size int64) error {
	l.valid = false
	err := l.rescanItems(size)
	var be *BreakError
	if errors.As(err, &be) {
		return l.firstBreak(be)
	}
	return err
}

// firstBreak returns the break at the first item before be that does not
// decode as a record, or be when there is none. rescanItems reads the
// middle of the log as CBOR items only, and a record whose length byte
// changed can misalign every item after it: the break rescanItems finds is
// then at a made-up item, possibly one cut short by the end of the file
// that looks like a torn tail. Decoding the items before it (no signature
// is checked) finds the damaged record instead. It runs only on a break.
func (l *Log) firstBreak(be *BreakError) error {
	for _, err := range Scan(io.NewSectionReader(l.f, 0, be.Offset)) {
		if err != nil {
			return err
		}
	}
	return be
}

// rescanItems is rescan without firstBreak.
func (l *Log) rescanItems(size int64) error {
	v := newReplayer(l.ver, l.origin)
	v.merkle = false
	s := newScanner(io.NewSectionReader(l.f, 0, size))
	var prev, last []byte
	var prevOff, lastOff int64
	for {
		item, off, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if off == 0 {
			if err := v.add(item, off); err != nil {
				return v.keyOrBreak(err, item, s)
			}
		}
		prev, last = last, append(prev[:0], item...)
		prevOff, lastOff = lastOff, off
	}
	if n := s.index; n >= 2 {
		pr, _, err := decode(prev)
		if err != nil {
			return &BreakError{Index: n - 2, Offset: prevOff, Reason: err.Error()}
		}
		v = &replayer{key: l.ver, origin: l.origin, count: n - 1, head: sha256.Sum256(prev), last: pr.Time.UnixMilli(), atIndex: -1}
		if err := v.add(last, lastOff); err != nil {
			return err
		}
	}
	l.valid, l.size, l.count, l.head, l.last, l.tailLen = true, size, v.count, v.head, v.last, int64(len(last))
	return nil
}
