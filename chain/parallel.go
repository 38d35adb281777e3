package chain

import (
	"io"
	"sync"
)

// batch is up to parallelBatch records read from a log, with their own
// checks (decoding, signature) once workers have done them.
type batch struct {
	buf  []byte  // the items, back to back
	ends []int   // end of each item in buf
	offs []int64 // offset of each item in the log
	res  []checked
	serr error // the scanner's error after the last item: io.EOF at the end
}

func (b *batch) len() int { return len(b.ends) }

func (b *batch) item(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.buf[start:b.ends[i]]
}

// read fills b with the next records of s.
func (b *batch) read(s *scanner) {
	b.buf, b.ends, b.offs, b.serr = b.buf[:0], b.ends[:0], b.offs[:0], nil
	for len(b.ends) < parallelBatch {
		item, off, err := s.next()
		if err != nil {
			b.serr = err
			return
		}
		b.buf = append(b.buf, item...)
		b.ends, b.offs = append(b.ends, len(b.buf)), append(b.offs, off)
	}
}

// check starts workers goroutines checking b's records; wait on the
// WaitGroup returned before reading b.res.
func (v *replayer) check(b *batch, workers int) *sync.WaitGroup {
	b.res = append(b.res[:0], make([]checked, b.len())...)
	wg := new(sync.WaitGroup)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < b.len(); i += workers {
				b.res[i] = v.checkOne(b.item(i))
			}
		})
	}
	return wg
}

// runParallel replays the records of s with workers goroutines: while
// they decode a batch of records and check its signatures, this goroutine
// reads the next batch and checks the chain (sequence, links, times,
// hashes) of the batch before, one record after another, in order. It
// reports exactly what the sequential replay does: the first failing
// record, and for it the first failing check in add's order. It returns
// nil at the end of s.
func (v *replayer) runParallel(s *scanner, workers int) error {
	cur, next := new(batch), new(batch)
	cur.read(s)
	wg := v.check(cur, workers)
	for {
		var nextWG *sync.WaitGroup
		if cur.serr == nil {
			next.read(s)
		}
		wg.Wait()
		if cur.serr == nil {
			nextWG = v.check(next, workers)
		}
		if err := v.addBatch(cur, next, nextWG, s); err != nil {
			return err
		}
		if cur.serr == io.EOF {
			return nil
		}
		if cur.serr != nil {
			return cur.serr
		}
		cur, next, wg = next, cur, nextWG
	}
}

// addBatch adds cur's checked records to the chain. On a break it waits
// for next (being checked, nil when not read) so that the key-error rule
// sees every record read after the break.
func (v *replayer) addBatch(cur, next *batch, nextWG *sync.WaitGroup, s *scanner) error {
	for i := range cur.len() {
		item := cur.item(i)
		err := v.addChecked(item, cur.offs[i], cur.res[i])
		if err == nil {
			if v.progress != nil {
				v.progress(v.count, cur.offs[i]+int64(len(item)))
			}
			continue
		}
		seen := anyVerifies(cur.res[i+1:])
		if nextWG != nil {
			nextWG.Wait()
			seen = seen || anyVerifies(next.res)
		}
		return v.keyOrBreakSeen(err, item, s, seen)
	}
	return nil
}

// anyVerifies reports whether one of the records decodes and verifies
// under the key.
func anyVerifies(res []checked) bool {
	for _, c := range res {
		if c.sigOK {
			return true
		}
	}
	return false
}
