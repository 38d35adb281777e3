package fuzz

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// The allocation bound every decoder must keep (a decoder bounds its
// allocations by a small multiple of its input, so that no input can make
// it allocate far more than it read): one decode of n input
// bytes allocates at most allocMultiple*n + allocSlack bytes in total
// (runtime.MemStats.TotalAlloc, which counts every allocation, freed or
// not). The slack covers fixed costs (keyrings, hash states, JOSE parsing
// of a tiny proof).
const (
	allocMultiple = 64
	allocSlack    = 64 << 10
)

func allocBound(n int) uint64 { return uint64(allocMultiple)*uint64(n) + allocSlack }

// allocated returns the bytes f allocates. The measurement is process
// wide, so it must not run beside other work (tests here are not
// parallel; a fuzz worker runs one input at a time).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// checkAllocs fails if f, a decode of n input bytes, allocates more than
// allocBound(n). Over the bound it measures once more and keeps the lower
// figure, so that a stray allocation elsewhere in the process (the fuzz
// worker's own bookkeeping) cannot fail it.
func checkAllocs(t testing.TB, what string, n int, f func()) {
	t.Helper()
	f() // warm up lazily initialised state (decoder modes, pools)
	got := allocated(f)
	if got > allocBound(n) {
		got = min(got, allocated(f))
	}
	if got > allocBound(n) {
		t.Fatalf("%s of %d bytes allocates %d bytes, over the bound %d×%d + %d = %d",
			what, n, got, allocMultiple, n, allocSlack, allocBound(n))
	}
}

var sampleCount atomic.Uint64

// sampleAllocs runs checkAllocs on every 256th input a target sees and on
// every input larger than 16 KiB (ReadMemStats stops the world; measuring
// every input would slow fuzzing down several times). TestDecodeAllocBound
// measures every committed seed.
func sampleAllocs(t testing.TB, what string, n int, f func()) {
	if sampleCount.Add(1)%256 == 0 || n > 16<<10 {
		checkAllocs(t, what, n, f)
	}
}
