package bench

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The pair harness. On a shared 2-core
// host the speed of the machine changes from one second to the next, so a
// ratio of two benchmarks run minutes apart measures the host as much as
// the code. Here A and B run in the same process in short batches, in the
// order A B B A, several times; each ABBA group gives one ratio, in which a
// change of speed that is linear over the group cancels, and the median of
// the groups' ratios is reported with their range.

// sample is a reading of the two clocks a batch is timed with, or the
// difference of two readings.
type sample struct {
	wall time.Duration // monotonic wall time
	cpu  time.Duration // CPU time of the process and its waited-for children
}

func (s sample) sub(t sample) sample { return sample{s.wall - t.wall, s.cpu - t.cpu} }
func (s sample) add(t sample) sample { return sample{s.wall + t.wall, s.cpu + t.cpu} }

// perOp returns s divided by n operations, in nanoseconds.
func (s sample) perOp(n int) (wall, cpu float64) {
	return float64(s.wall) / float64(n), float64(s.cpu) / float64(n)
}

var epoch = time.Now()

// readClocks reads the real clocks.
func readClocks() sample {
	cpu, _ := processCPU()
	return sample{wall: time.Since(epoch), cpu: cpu}
}

// mallocs returns the number of heap allocations the process has made.
func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// side is one half of a pair: run does n operations.
type side struct {
	name   string
	run    func(n int) error
	allocs bool // report the heap allocations of an operation
	// times, when set, collects the wall time of every operation of the
	// measured groups (run appends to it).
	times *[]time.Duration
}

func (s side) reset() {
	if s.times != nil {
		*s.times = (*s.times)[:0]
	}
}

// serial is the side that calls op n times in one goroutine.
func serial(name string, op func() error) side {
	return side{name: name, allocs: true, run: func(n int) error {
		for range n {
			if err := op(); err != nil {
				return err
			}
		}
		return nil
	}}
}

// parallel is the side that calls op n times from GOMAXPROCS goroutines
// (see callers), as testing.B.RunParallel does.
func parallel(name string, op func() error) side {
	return callers(0, name, op)
}

// callers is the side that calls op n times from procs goroutines
// (GOMAXPROCS when procs is 0), which take the next few calls from a shared
// counter as they go, as testing.B.RunParallel's goroutines do: one
// goroutine held up by the host does fewer calls rather than holding up the
// batch's end.
func callers(procs int, name string, op func() error) side {
	return side{name: name, allocs: true, run: func(n int) error {
		procs := procs
		if procs == 0 {
			procs = runtime.GOMAXPROCS(0)
		}
		grain := int64(max(1, n/(procs*64)))
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, procs)
		for g := range procs {
			wg.Go(func() {
				for {
					end := next.Add(grain)
					start := end - grain
					if start >= int64(n) {
						return
					}
					for range min(end, int64(n)) - start {
						if err := op(); err != nil {
							errs[g] = err
							next.Store(int64(n)) // stop the others
							return
						}
					}
				}
			})
		}
		wg.Wait()
		return errors.Join(errs...)
	}}
}

// target is a target for a pair's median ratio.
type target struct {
	text    string  // as the target is stated
	limit   float64 // the bound on the median ratio
	atLeast bool    // the ratio must be at least limit (else at most)
}

func (t target) met(ratio float64) bool {
	if t.atLeast {
		return ratio >= t.limit
	}
	return ratio <= t.limit
}

// pair is one comparison: B against A.
type pair struct {
	group   string // the table it is printed in
	name    string
	a, b    side
	wall    bool    // judge by wall time (else by CPU time)
	speedup bool    // the ratio is A's time per op ÷ B's (B's throughput over A's), else B's ÷ A's
	target  *target // nil: no target
	batch   time.Duration
}

// harness measures pairs.
type harness struct {
	groups int           // ABBA groups per pair
	batch  time.Duration // wall time of one batch (a pair may ask for more)
	clock  func() sample
	allocs func() uint64
}

func newHarness(groups int, batch time.Duration) *harness {
	return &harness{groups: groups, batch: batch, clock: readClocks, allocs: mallocs}
}

// result is the measurement of one pair.
type result struct {
	pair
	nA, nB   int       // operations per batch
	ratio    []float64 // one per ABBA group, by the judging clock
	other    []float64 // the same by the other clock
	opA, opB sample    // median time per operation
	allocsA  float64   // heap allocations per operation
	allocsB  float64
	// timesA, timesB: every operation's wall time, for sides that record
	// them (process launches).
	timesA, timesB []time.Duration
	load           string // the 1-minute load average as the pair started
}

// batchOf runs n operations of s and returns the time they took and the
// allocations they made.
func (h *harness) batchOf(s side, n int) (sample, uint64, error) {
	m0 := h.allocs()
	t0 := h.clock()
	err := s.run(n)
	d := h.clock().sub(t0)
	return d, h.allocs() - m0, err
}

// calibrate returns the number of operations of s that take about d of
// wall time, counting up tenfold until a batch takes a tenth of d.
func (h *harness) calibrate(s side, d time.Duration) (int, error) {
	for n := 1; ; n *= 10 {
		t, _, err := h.batchOf(s, n)
		if err != nil {
			return 0, err
		}
		if t.wall >= d/10 || n >= 1<<40 {
			return max(1, int(float64(n)*float64(d)/float64(max(t.wall, 1)))), nil
		}
	}
}

// measure runs p: both sides calibrated to one batch, one warm-up group,
// then h.groups groups of batches in the order A B B A. Each group gives
// one ratio of the sides' time per operation (A's two batches against B's
// two), so a change of the machine's speed that is linear over the group
// cancels.
func (h *harness) measure(p pair) (*result, error) {
	d := max(p.batch, h.batch)
	r := &result{pair: p}
	var err error
	if r.nA, err = h.calibrate(p.a, d); err != nil {
		return nil, err
	}
	if r.nB, err = h.calibrate(p.b, d); err != nil {
		return nil, err
	}
	var allocA, allocB uint64
	var perA, perB []sample
	for g := -1; g < h.groups; g++ { // group -1 warms up
		if g == 0 {
			p.a.reset()
			p.b.reset()
		}
		var ta, tb sample
		for _, isA := range []bool{true, false, false, true} {
			s, n := p.b, r.nB
			if isA {
				s, n = p.a, r.nA
			}
			t, m, err := h.batchOf(s, n)
			if err != nil {
				return nil, err
			}
			if g < 0 {
				continue
			}
			if isA {
				ta, allocA = ta.add(t), allocA+m
			} else {
				tb, allocB = tb.add(t), allocB+m
			}
		}
		if g < 0 {
			continue
		}
		a, b := scale(ta, 2*r.nA), scale(tb, 2*r.nB)
		perA, perB = append(perA, a), append(perB, b)
		wall, cpu := ratio(a.wall, b.wall, p.speedup), ratio(a.cpu, b.cpu, p.speedup)
		if p.wall {
			r.ratio, r.other = append(r.ratio, wall), append(r.other, cpu)
		} else {
			r.ratio, r.other = append(r.ratio, cpu), append(r.other, wall)
		}
	}
	r.opA, r.opB = medianSample(perA), medianSample(perB)
	if p.a.times != nil {
		r.timesA = slices.Clone(*p.a.times)
	}
	if p.b.times != nil {
		r.timesB = slices.Clone(*p.b.times)
	}
	r.allocsA = float64(allocA) / float64(2*h.groups*r.nA)
	r.allocsB = float64(allocB) / float64(2*h.groups*r.nB)
	return r, nil
}

// scale returns s per operation, as durations of nanoseconds (rounded
// toward zero: a nanosecond is far below the noise of any batch).
func scale(s sample, n int) sample {
	return sample{s.wall / time.Duration(n), s.cpu / time.Duration(n)}
}

func ratio(a, b time.Duration, speedup bool) float64 {
	if speedup {
		a, b = b, a
	}
	if a <= 0 {
		return math.NaN()
	}
	return float64(b) / float64(a)
}

// median returns the median of xs (the mean of the middle two for an even
// count); NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianSample(ss []sample) sample {
	var w, c []float64
	for _, s := range ss {
		w, c = append(w, float64(s.wall)), append(c, float64(s.cpu))
	}
	return sample{time.Duration(median(w)), time.Duration(median(c))}
}

// median, lo, hi summarize r's ratios by the judging clock.
func (r *result) median() float64 { return median(r.ratio) }
func (r *result) lo() float64     { return slices.Min(r.ratio) }
func (r *result) hi() float64     { return slices.Max(r.ratio) }
