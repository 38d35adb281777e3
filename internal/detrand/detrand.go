// Package detrand is a deterministic byte stream for test vectors and
// tests: SHA-256(seed ‖ counter) blocks, so that vectors regenerate to the
// same bytes. It is never used for real keys.
package detrand

import (
	"crypto/sha256"
	"encoding/binary"
)

// Reader yields SHA-256(seed ‖ uint64be(i)) for i = 0, 1, 2, ...
type Reader struct {
	seed []byte
	ctr  uint64
	buf  []byte
}

// New returns a reader for the given seed.
func New(seed string) *Reader { return &Reader{seed: []byte(seed)} }

// Read fills p; it never fails.
func (r *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.buf) == 0 {
			var c [8]byte
			binary.BigEndian.PutUint64(c[:], r.ctr)
			r.ctr++
			sum := sha256.Sum256(append(append([]byte(nil), r.seed...), c[:]...))
			r.buf = sum[:]
		}
		k := copy(p[n:], r.buf)
		r.buf = r.buf[k:]
		n += k
	}
	return n, nil
}
