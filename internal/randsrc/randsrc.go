// Package randsrc is the one place packages token, chain and dpop draw
// randomness from: crypto/rand, unless the spec vector generator has fixed
// a source with Fix.
//
// No public API of tickettool takes a randomness parameter.
// Tests that want reproducible keys or tickets call
// testing/cryptotest.SetGlobalRandom, which Reader honours because it reads
// crypto/rand.Reader at each call.
//
// Two generators of committed, byte-checked files cannot use
// SetGlobalRandom, and call Fix instead: the spec vector generator
// (spec/internal/vecgen), which runs outside tests under `go generate`
// (SetGlobalRandom panics there), and the fuzz suite's seed fixtures
// (fuzz/fixtures_test.go), built at package initialisation where there is
// no *testing.T. Both define their files by internal/detrand streams, one
// per key and ticket, which no SetGlobalRandom seed reproduces.
//
// Fix is process-wide: while a source is fixed, every caller in the process
// gets its bytes. Nothing but those two generators may call it; no library
// code, command or behaviour test.
package randsrc

import (
	"crypto/rand"
	"io"
	"sync/atomic"
)

type source struct{ r io.Reader }

var fixed atomic.Pointer[source]

// Reader returns the fixed source if there is one, else crypto/rand.Reader
// as it is at the time of the call.
func Reader() io.Reader {
	if r := Fixed(); r != nil {
		return r
	}
	return rand.Reader
}

// Fixed returns the source set by Fix, or nil. Callers whose derivation
// from a byte stream differs from their crypto/rand path (dpop's ES256
// keys) use it to choose.
func Fixed() io.Reader {
	if s := fixed.Load(); s != nil {
		return s.r
	}
	return nil
}

// Fix makes r the source of Reader until the returned function is called,
// which restores the previous source. Only the generators named in the
// package doc may call it.
func Fix(r io.Reader) (restore func()) {
	prev := fixed.Swap(&source{r: r})
	return func() { fixed.Store(prev) }
}
