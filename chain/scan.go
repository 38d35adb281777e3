package chain

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/tickettool/tickettool/internal/wire"
)

// truncatedReason is internal/wire's reason for an item cut short by the end
// of its input; TestTornEveryLength pins it.
const truncatedReason = "unexpected end of input"

// scanner reads a log, an RFC 8742 CBOR sequence, one canonical item at a
// time. It checks only that each item is canonical CBOR within
// MaxRecordBytes; decoding is the caller's.
type scanner struct {
	br      *bufio.Reader
	off     int64 // offset of the next item
	index   int64 // index of the next item
	pending int   // bytes of the last item, discarded on the next call
}

func newScanner(r io.Reader) *scanner {
	return &scanner{br: bufio.NewReaderSize(r, MaxRecordBytes)}
}

// next returns the next item (valid until the next call) and its offset,
// io.EOF at a clean end, a *BreakError for bytes that are not an item
// (Torn when the input ends inside one), or a read error.
func (s *scanner) next() ([]byte, int64, error) {
	if s.pending > 0 {
		if _, err := s.br.Discard(s.pending); err != nil {
			return nil, s.off, fmt.Errorf("chain: read log: %w", readReason(err))
		}
		s.pending = 0
	}
	// A complete map (the only item a record can be) already buffered is
	// used as it is; anything else fills the buffer (bufio moves the unread
	// bytes to its start) up to MaxRecordBytes or the end of the input, and
	// is classified there.
	if buf, _ := s.br.Peek(s.br.Buffered()); len(buf) > 0 && buf[0]>>5 == 5 {
		if n, err := wire.ItemLen(buf, wire.RecordLimits()); err == nil {
			off := s.off
			s.pending, s.off, s.index = n, s.off+int64(n), s.index+1
			return buf[:n], off, nil
		}
	}
	buf, err := s.br.Peek(MaxRecordBytes)
	atEOF := false
	if err != nil {
		if !errors.Is(err, io.EOF) {
			return nil, s.off, fmt.Errorf("chain: read log: %w", readReason(err))
		}
		atEOF = true
	}
	if len(buf) == 0 {
		return nil, s.off, io.EOF
	}
	n, cerr := wire.ItemLen(buf, wire.RecordLimits())
	if atEOF && isTorn(buf, cerr) {
		return nil, s.off, s.tornBreak(buf, cerr)
	}
	if cerr != nil {
		return nil, s.off, notLog(&BreakError{Index: s.index, Offset: s.off, Reason: "not a canonical CBOR item: " + cerr.Error()}, buf)
	}
	off := s.off
	s.pending, s.off, s.index = n, s.off+int64(n), s.index+1
	return buf[:n], off, nil
}

// isTorn reports whether tail, the rest of a log, is what an interrupted
// append leaves: a map head and then bytes that are all a canonical prefix,
// cut short by the end of the file (err is internal/wire's truncation error,
// which it gives only when every byte before the end could start a
// canonical item), or zero bytes only (what some file systems leave after
// a power loss). FORMAT.md §2 states the rule byte by byte.
func isTorn(tail []byte, err error) bool {
	var ce *wire.Error
	if err != nil && errors.As(err, &ce) && ce.Reason == truncatedReason && tail[0]>>5 == 5 {
		return true
	}
	for _, b := range tail {
		if b != 0 {
			return false
		}
	}
	return true
}

// tornBreak classifies rest, the rest of the log from an item that isTorn:
// a torn tail when no complete, well-formed record starts anywhere after
// its first byte, else damage at that item (a broken log, not torn), since
// a crash mid-append leaves nothing after the record it cut short.
func (s *scanner) tornBreak(rest []byte, cerr error) *BreakError {
	be := &BreakError{Index: s.index, Offset: s.off}
	at := recordAfter(rest[1:])
	if at == -1 {
		be.Torn, be.Reason = true, fmt.Sprintf("%d bytes of an incomplete record", len(rest))
		return be
	}
	be.Reason = fmt.Sprintf("not a canonical CBOR item: %v, and ", cerr)
	if at >= 0 {
		be.Reason += fmt.Sprintf("a complete record starts at offset %d after it", s.off+1+int64(at))
	} else {
		be.Reason += fmt.Sprintf("more than %d record-like items follow it", maxRecordProbes)
	}
	be.Reason += ": damage, not a torn tail"
	return be
}

// recordAfter returns the offset of the first complete, well-formed record
// (one that Decode accepts) starting in b, or -1 when none does. It tries
// only the offsets where a record's first bytes stand (a map head of 6 to
// 17 pairs, key 1, an unsigned integer head), at most maxRecordProbes of
// them, each on at most MaxRecordBytes: when more offsets remain it
// returns -2, so that bytes made to hold many record-like items are taken
// for damage (fail closed), never for a torn tail. Its time is linear in
// len(b).
func recordAfter(b []byte) int {
	probes := 0
	for i := 0; i+2 < len(b); i++ {
		if !recordLike(b[i:]) {
			continue
		}
		if probes++; probes > maxRecordProbes {
			return -2
		}
		item := b[i:min(len(b), i+MaxRecordBytes)]
		n, err := wire.ItemLen(item, wire.RecordLimits())
		if err != nil {
			continue
		}
		if _, _, err := decode(item[:n]); err == nil {
			return i
		}
	}
	return -1
}

// Entry is one record of a log as [Scan] reads it.
type Entry struct {
	Index  int64  // position in the log, from 0
	Offset int64  // byte offset of the record in the log
	Bytes  []byte // the record's exact bytes
	Record Record
}

// Scan returns an iterator over the records of a log (for display, e.g.
// "receipt show"). Each record is decoded strictly, but Scan checks no
// signature, link, sequence or time: use [Verify] for that. At the first
// record that does not decode it yields a zero [Entry] (Index and Offset
// set) with a *[BreakError] or read error, and stops.
func Scan(r io.Reader) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		s := newScanner(r)
		for {
			idx := s.index
			item, off, err := s.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Entry{Index: idx, Offset: off}, err)
				return
			}
			rec, _, derr := decode(item)
			if derr != nil {
				yield(Entry{Index: idx, Offset: off}, notLog(&BreakError{Index: idx, Offset: off, Reason: derr.Error()}, item))
				return
			}
			if !yield(Entry{Index: idx, Offset: off, Bytes: append([]byte(nil), item...), Record: rec}, nil) {
				return
			}
		}
	}
}
