package chain

import (
	"io"
	"sync"
)

// runParallel replays the records of s with workers goroutines: it reads
// a batch of records, decodes them and checks their signatures on all
// workers at once, then checks the chain (sequence, links, times, hashes)
// one record after another, in order. It reports exactly what the
// sequential replay does: the first failing record, and for it the first
// failing check in add's order. It returns nil at the end of s.
func (v *replayer) runParallel(s *scanner, workers int) error {
	var (
		buf   []byte  // the batch's items, back to back
		ends  []int   // end of each item in buf
		offs  []int64 // offset of each item in the log
		res   []checked
		first []byte // record 0, when this batch holds it
	)
	for {
		buf, ends, offs = buf[:0], ends[:0], offs[:0]
		var serr error
		for len(ends) < parallelBatch {
			item, off, err := s.next()
			if err != nil {
				serr = err
				break
			}
			buf = append(buf, item...)
			ends, offs = append(ends, len(buf)), append(offs, off)
		}
		n := len(ends)
		item := func(i int) []byte {
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			return buf[start:ends[i]]
		}
		res = append(res[:0], make([]checked, n)...)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < n; i += workers {
					res[i] = v.check(item(i))
				}
			})
		}
		wg.Wait()
		for i := range n {
			if err := v.addChecked(item(i), offs[i], res[i]); err != nil {
				if v.count == 0 {
					first = item(i)
				}
				return v.keyOrBreakSeen(err, first, s, anyVerifies(res[i+1:]))
			}
			if v.progress != nil {
				v.progress(v.count, offs[i]+int64(len(item(i))))
			}
		}
		if serr == io.EOF {
			return nil
		}
		if serr != nil {
			return serr
		}
	}
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
