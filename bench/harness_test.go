package bench

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMain makes the test binary a stand-in process for TestLaunches:
// with BENCH_PAIRS_CHILD set it exits at once with that status; with
// BENCH_BARE_PROXY set it is the bare reverse proxy of the proxy pairs.
func TestMain(m *testing.M) {
	if s := os.Getenv("BENCH_PAIRS_CHILD"); s != "" {
		code, _ := strconv.Atoi(s)
		os.Exit(code)
	}
	if u := os.Getenv("BENCH_BARE_PROXY"); u != "" {
		bareProxy(u)
	}
	os.Exit(m.Run())
}

// fakeMachine is a clock that only operations move: an operation of cost
// c at time t takes c × (1 + drift × t / 1s), on both clocks. It records
// which side ran each batch.
type fakeMachine struct {
	now   time.Duration
	drift float64
	order strings.Builder
}

func (m *fakeMachine) clock() sample { return sample{m.now, m.now} }

func (m *fakeMachine) side(name string, cost time.Duration) side {
	return side{name: name, allocs: true, run: func(n int) error {
		m.order.WriteString(name)
		for range n {
			m.now += time.Duration(float64(cost) * (1 + m.drift*m.now.Seconds()))
		}
		return nil
	}}
}

func (m *fakeMachine) harness(groups int) *harness {
	return &harness{groups: groups, batch: 10 * time.Millisecond, clock: m.clock, allocs: func() uint64 { return 0 }}
}

// TestMeasureABBA: after calibration and one warm-up group, the batches run
// A B B A in every group, each side's count fills one batch, and the ratio
// is B's time per operation over A's.
func TestMeasureABBA(t *testing.T) {
	m := &fakeMachine{}
	h := m.harness(3)
	r, err := h.measure(pair{a: m.side("A", time.Microsecond), b: m.side("B", 3*time.Microsecond)})
	if err != nil {
		t.Fatal(err)
	}
	if r.nA != 10000 || r.nB != 3333 {
		t.Errorf("counts %d, %d; want 10000, 3333 (one 10 ms batch each)", r.nA, r.nB)
	}
	if got, want := m.order.String(), "AAAABBBB"+"ABBA"+strings.Repeat("ABBA", 3); got != want {
		t.Errorf("batch order %s, want %s (calibration, warm-up, 3 groups)", got, want)
	}
	if len(r.ratio) != 3 || r.median() != 3 || r.lo() != 3 || r.hi() != 3 {
		t.Errorf("ratios %v, want three of 3", r.ratio)
	}
	if r.opA.cpu != time.Microsecond || r.opB.wall != 3*time.Microsecond {
		t.Errorf("per op %v, %v; want 1µs, 3µs", r.opA, r.opB)
	}
}

// TestMeasureCancelsDrift: on a machine that slows down steadily, the ABBA
// order still gives the true ratio, where the same batches in the order
// A B (each group) would not. This is the reason for the order: it fails
// if measure runs A B A B.
func TestMeasureCancelsDrift(t *testing.T) {
	m := &fakeMachine{drift: 2} // 2 % slower every 10 ms
	r, err := m.harness(9).measure(pair{a: m.side("A", time.Microsecond), b: m.side("B", time.Microsecond)})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range r.ratio {
		if math.Abs(x-1) > 0.002 {
			t.Fatalf("ratio %.4f with drift, want 1 ± 0.002 (ratios %v)", x, r.ratio)
		}
	}
	// The same drift, batches A then B: B looks ≈2 % slower.
	a, b := m.side("A", time.Microsecond), m.side("B", time.Microsecond)
	t0 := m.clock()
	_ = a.run(r.nA)
	t1 := m.clock()
	_ = b.run(r.nB)
	if x := ratio(t1.sub(t0).wall/time.Duration(r.nA), m.clock().sub(t1).wall/time.Duration(r.nB), false); x < 1.01 {
		t.Fatalf("the drift is too small to show: A B ratio %.4f", x)
	}
}

// TestMeasureSpeedup: a speedup pair reports A's time over B's.
func TestMeasureSpeedup(t *testing.T) {
	m := &fakeMachine{}
	r, err := m.harness(1).measure(pair{a: m.side("A", 4*time.Microsecond), b: m.side("B", time.Microsecond), speedup: true, wall: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.median() != 4 {
		t.Errorf("speedup %v, want 4", r.median())
	}
}

// TestMeasureFails: an operation's error ends the measurement.
func TestMeasureFails(t *testing.T) {
	m := &fakeMachine{}
	bad := serial("bad", func() error { return errors.New("refused") })
	if _, err := m.harness(1).measure(pair{a: m.side("A", time.Microsecond), b: bad}); err == nil {
		t.Error("a failing side measured")
	}
}

func TestTargetMet(t *testing.T) {
	cases := []struct {
		t     target
		ratio float64
		met   bool
	}{
		{target{limit: 0.5}, 0.5, true},
		{target{limit: 0.5}, 0.5001, false},
		{target{limit: 1.9, atLeast: true}, 1.9, true},
		{target{limit: 1.9, atLeast: true}, 1.8999, false},
		{target{limit: 1.9, atLeast: true}, math.NaN(), false},
		{target{limit: 0.5}, math.NaN(), false},
	}
	for _, c := range cases {
		if got := c.t.met(c.ratio); got != c.met {
			t.Errorf("%+v met(%v) = %v, want %v", c.t, c.ratio, got, c.met)
		}
	}
}

func TestMedian(t *testing.T) {
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, c := range cases {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

// TestParallelRunsN: the parallel side makes exactly n calls, and stops
// at an error.
func TestParallelRunsN(t *testing.T) {
	for _, n := range []int{1, 7, 1000, 12345} {
		var calls atomic.Int64
		s := parallel("p", func() error { calls.Add(1); return nil })
		if err := s.run(n); err != nil || calls.Load() != int64(n) {
			t.Errorf("n=%d: %d calls, err %v", n, calls.Load(), err)
		}
	}
	var calls atomic.Int64
	s := parallel("p", func() error {
		if calls.Add(1) == 10 {
			return errors.New("refused")
		}
		return nil
	})
	if err := s.run(100000); err == nil || calls.Load() == 100000 {
		t.Errorf("an error did not stop the side: %d calls, err %v", calls.Load(), err)
	}
}

// TestLaunches: the process side launches its program n times, records
// each launch, and fails on a non-zero exit.
func TestLaunches(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BENCH_PAIRS_CHILD", "0")
	ok := launches("child", exe)
	if err := ok.run(3); err != nil || len(*ok.times) != 3 {
		t.Errorf("3 launches: %d recorded, err %v", len(*ok.times), err)
	}
	t.Setenv("BENCH_PAIRS_CHILD", "3")
	if err := launches("child", exe).run(1); err == nil {
		t.Error("a launch that exits 3 did not fail")
	}
}
