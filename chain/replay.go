package chain

import (
	"crypto/sha256"
	"fmt"
	"io"
	"runtime"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/tickettool/tickettool/key"
)

// replayer checks records one after another: canonical decoding, the
// algorithm, the signature, the sequence number, the prev link and time.
type replayer struct {
	key     *key.Verifying
	origin  string
	count   int64
	head    [32]byte
	last    int64 // milliseconds of the last record, -1 before the first
	merkle  bool  // keep tlog stored hashes
	stored  hashStore
	atIndex int64    // record whose chain hash headAt receives, or -1
	headAt  [32]byte // chain hash of record atIndex

	progress func(records, bytes int64) // called after every record added, or nil
	each     func(int64, Record)        // called with every record added, or nil
}

func newReplayer(k *key.Verifying, origin string) *replayer {
	return &replayer{key: k, origin: origin, head: OriginHash(origin), last: -1, merkle: true, atIndex: -1}
}

// checked is what one record's checks that need no other record found:
// its decoding and its signature. Workers compute it in parallel.
type checked struct {
	rec   Record
	err   error // decoding
	sigOK bool  // the record's alg is the key's and its signature verifies
}

// checkOne decodes item and checks its signature.
func (v *replayer) checkOne(item []byte) checked {
	var c checked
	var input []byte
	c.rec, input, c.err = decode(item)
	c.sigOK = c.err == nil && c.rec.Alg == v.key.Alg() && v.key.Verify(input, c.rec.Sig)
	return c
}

// add checks one item that starts at offset off and adds it to the chain.
func (v *replayer) add(item []byte, off int64) error {
	return v.addChecked(item, off, v.checkOne(item))
}

// addChecked is add with the item's own checks done (c).
func (v *replayer) addChecked(item []byte, off int64, c checked) error {
	brk := func(format string, a ...any) *BreakError {
		return &BreakError{Index: v.count, Offset: off, Reason: fmt.Sprintf(format, a...)}
	}
	rec := c.rec
	switch {
	case c.err != nil:
		return notLog(brk("%v", c.err), item)
	case rec.Alg != v.key.Alg():
		be := brk("record algorithm %s, key algorithm %s", rec.Alg, v.key.Alg())
		be.keyFail = v.count == 0
		return be
	case !c.sigOK:
		be := brk("signature does not verify")
		be.keyFail = v.count == 0
		return be
	case rec.Seq != uint64(v.count):
		return brk("sequence number %d, expected %d", rec.Seq, v.count)
	case rec.Prev != v.head && v.count == 0:
		return brk("prev is not bound to origin %s (a record of another log?)", quote(v.origin))
	case rec.Prev != v.head:
		return brk("prev is not the hash of record %d", v.count-1)
	case rec.Time.UnixMilli() < v.last:
		return brk("time %s is before the previous record's", rec.Time.Format(timeFormat))
	}
	h := sha256.Sum256(item)
	if v.merkle {
		hs, err := tlog.StoredHashes(v.count, item, v.stored)
		if err != nil {
			return fmt.Errorf("chain: merkle hashes: %w", err)
		}
		v.stored = append(v.stored, hs...)
	}
	if v.count == v.atIndex {
		v.headAt = h
	}
	if v.each != nil {
		v.each(v.count, rec)
	}
	v.count, v.head, v.last = v.count+1, h, rec.Time.UnixMilli()
	return nil
}

// run replays every record of r and returns the summary: in parallel
// (runParallel) when GOMAXPROCS is over 1, else one record after another.
func (v *replayer) run(r io.Reader) (*Summary, error) {
	return v.runWith(r, runtime.GOMAXPROCS(0))
}

// runWith is run with workers goroutines checking signatures.
func (v *replayer) runWith(r io.Reader, workers int) (*Summary, error) {
	s := newScanner(r)
	if workers > 1 {
		if err := v.runParallel(s, workers); err != nil {
			return nil, err
		}
		return v.summary(s)
	}
	for {
		item, off, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := v.add(item, off); err != nil {
			return nil, v.keyOrBreak(err, item, s)
		}
		if v.progress != nil {
			v.progress(v.count, s.off)
		}
	}
	return v.summary(s)
}

// summary is the summary of a replay that reached the end of s.
func (v *replayer) summary(s *scanner) (*Summary, error) {
	sum := &Summary{Origin: v.origin, Count: v.count, Size: s.off, Head: v.head, stored: v.stored}
	if v.last >= 0 {
		sum.LastTime = time.UnixMilli(v.last).UTC()
	}
	if v.merkle {
		root, err := tlog.TreeHash(v.count, v.stored)
		if err != nil {
			return nil, fmt.Errorf("chain: merkle root: %w", err)
		}
		sum.Root = root
	}
	return sum, nil
}

// keyOrBreak returns err, the break at the first record, unless that
// record's algorithm or signature is not the key's and no later record
// (read from s) verifies under the key either: then the key is not the
// log's, and a *KeyError says so rather than reporting tampering.
func (v *replayer) keyOrBreak(err error, first []byte, s *scanner) error {
	return v.keyOrBreakSeen(err, first, s, false)
}

// keyOrBreakSeen is keyOrBreak when records between the first and s
// were read already: seen says whether one of them verifies.
func (v *replayer) keyOrBreakSeen(err error, first []byte, s *scanner, seen bool) error {
	be, ok := err.(*BreakError)
	if !ok || !be.keyFail || seen {
		return err
	}
	rec, _, derr := decode(first)
	if derr != nil {
		return err
	}
	for {
		item, _, serr := s.next()
		if serr != nil { // the end, or damage: nothing more to learn
			break
		}
		if r, input, derr := decode(item); derr == nil && r.Alg == v.key.Alg() && v.key.Verify(input, r.Sig) {
			return err // the key signed a record of this log
		}
	}
	return &KeyError{Key: keyName(v.key), KeyAlg: v.key.Alg(), LogAlg: rec.Alg}
}
