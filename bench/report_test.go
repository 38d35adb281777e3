package bench

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	pairsRun    = flag.Bool("pairs", false, "measure every pair (TestPairs) and write the report")
	pairsGroups = flag.Int("pairs.groups", 9, "ABBA groups per pair")
	pairsBatch  = flag.Duration("pairs.batch", 25*time.Millisecond, "wall time of one batch of an in-process side")
	pairsOnly   = flag.String("pairs.only", "", "measure only the pairs whose group or name matches this `regexp`")
	pairsOut    = flag.String("pairs.out", "", "write the report to `FILE` (default standard output)")
	pairsCommit = flag.String("pairs.commit", "", "the `COMMIT` measured, for the report's heading")
)

// processBatch is the wall time of one batch of process launches: 20 to
// 50 launches of a few milliseconds.
const processBatch = 100 * time.Millisecond

// TestPairs measures every pair bench/README.md reports and writes the
// report (markdown). It runs only with -pairs: bash run.sh.
func TestPairs(t *testing.T) {
	if !*pairsRun {
		t.Skip("measures only with -pairs (bash run.sh)")
	}
	only, err := regexp.Compile(*pairsOnly)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(*pairsGroups, *pairsBatch)
	load0, start := loadavg(), time.Now().UTC()
	v, sizes := verifySides(t)
	var names []string
	for _, lib := range libraries(t) {
		names = append(names, lib.name())
	}
	bs := buildBinaries(t)
	ps := slices.Concat(targetPairs(t, h, v), processPairs(t, bs), receiptPairs(t), peerPairs(v, names), scalePairs(t), mintPairs(t), httpPairs(t, bs))
	ps = slices.DeleteFunc(ps, func(p pair) bool { return !only.MatchString(p.group + ": " + p.name) })
	var rs []*result
	for i, p := range ps {
		load := loadavg()
		r, err := h.measure(p)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		r.load = load
		rs = append(rs, r)
		fmt.Fprintf(os.Stderr, "pairs: [%d/%d] %s: %s (%s)\n", i+1, len(ps), p.name, times(r.median()), rangeOf(r))
	}
	out := io.Writer(os.Stdout)
	if *pairsOut != "" {
		f, err := os.Create(*pairsOut)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out = f
	}
	fmt.Fprintf(out, "# bench/: pairs, %s – %s UTC, commit %s\n\n",
		start.Format("2006-01-02 15:04:05"), time.Now().UTC().Format("15:04:05"), cmp.Or(*pairsCommit, "not given"))
	fmt.Fprintf(out, "%s %s/%s, %d CPUs, GOMAXPROCS %d; %d ABBA groups per pair, batches of %v (process launches: %v); load average %s at the start, %s at the end.\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		h.groups, h.batch, processBatch, load0, loadavg())
	fmt.Fprintf(out, "CPU: %s.\n", cpuModel())
	fmt.Fprintf(out, "tickettool (CGO_ENABLED=0 go build ./cmd/tickettool, as README.md says): %s; with the toolchain's defaults (go build): %s; hello world (CGO_ENABLED=0): %s.\n",
		linking(bs.static), linking(bs.tickettool), linking(bs.hello))
	writeTables(out, rs)
	writeSizes(out, names, sizes)
}

// writeTables writes one markdown table per group, in the pairs' order.
func writeTables(w io.Writer, rs []*result) {
	var groups []string
	for _, r := range rs {
		if !slices.Contains(groups, r.group) {
			groups = append(groups, r.group)
		}
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\n## %s\n\n", g)
		fmt.Fprintln(w, "| pair: B ÷ A | median | range | clock | other clock | A per op | B per op | allocs/op A, B | load | target | verdict |")
		fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|")
		var notes []string
		for _, r := range rs {
			if r.group != g {
				continue
			}
			fmt.Fprintf(w, "| %s | **%s** | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				r.name, times(r.median()), rangeOf(r), clockOf(r), times(median(r.other)),
				perOp(r, r.opA), perOp(r, r.opB), allocs(r), r.load, targetText(r), verdict(r))
			if r.timesA != nil && r.timesB != nil {
				ma, mb := medianDuration(r.timesA), medianDuration(r.timesB)
				notes = append(notes, fmt.Sprintf("- %s: median launch %s (A, %d launches) and %s (B, %d launches): %s.",
					r.name, dur(float64(ma)), len(r.timesA), dur(float64(mb)), len(r.timesB), times(float64(mb)/float64(ma))))
			}
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
		}
	}
}

func writeSizes(w io.Writer, names []string, sizes map[string]int) {
	fmt.Fprintf(w, "\n## Encoded size (binary form) of the scenario's token\n\n| library | bytes |\n|---|---:|\n")
	for _, n := range names {
		fmt.Fprintf(w, "| %s | %d |\n", n, sizes[n])
	}
}

// times formats a ratio: three decimals below 10 (the targets near 1
// differ in the third: 1.05× and 1.047×), three significant digits above.
func times(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f×", x)
	case x >= 10:
		return fmt.Sprintf("%.1f×", x)
	}
	return fmt.Sprintf("%.3f×", x)
}

func rangeOf(r *result) string {
	return fmt.Sprintf("%s … %s", strings.TrimSuffix(times(r.lo()), "×"), times(r.hi()))
}

func clockOf(r *result) string {
	if r.wall {
		return "wall"
	}
	return "cpu"
}

// dur formats nanoseconds.
func dur(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// perOp formats a side's median time per operation on r's judging clock.
func perOp(r *result, s sample) string {
	if r.wall {
		return dur(float64(s.wall))
	}
	return dur(float64(s.cpu))
}

func allocs(r *result) string {
	f := func(s side, x float64) string {
		if !s.allocs {
			return "—"
		}
		if x >= 1000 {
			return fmt.Sprintf("%.0f", x)
		}
		return fmt.Sprintf("%.3g", x)
	}
	return f(r.a, r.allocsA) + ", " + f(r.b, r.allocsB)
}

func targetText(r *result) string {
	if r.target == nil {
		return ""
	}
	if strings.HasSuffix(r.target.text, "×") {
		return r.target.text
	}
	return fmt.Sprintf("%s (≤ %.3f×)", r.target.text, r.target.limit)
}

func verdict(r *result) string {
	switch {
	case r.target == nil:
		return ""
	case r.target.met(r.median()):
		return "met"
	}
	return "**not yet**"
}

func medianDuration(ds []time.Duration) time.Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(median(xs))
}

// loadavg returns the 1-minute load average, or "?" where there is none.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b) + " ?")[0]
}

// cpuModel returns the CPU's model name, or "?".
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
