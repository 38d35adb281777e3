// Command benchtable turns the output of the bench module's benchmarks
// (go test -bench . -benchmem -count N) into the tables of README.md:
// ratios to tickettool-hmac, the floors, the targets with PASS or
// FAIL, the scale tables and the parallel speed-up. Every figure is the
// median of the N runs of one benchmark, all from the same results file,
// so that the ratios compare numbers measured side by side.
//
// With -unit cpu-ns/op, times are the process CPU time per op that the
// benchmarks report beside wall time, which waiting for a core on a shared
// machine does not inflate.
//
// With -stat min, every figure is instead the fastest of the N runs: on a
// shared machine, interference only ever slows a run down, so the minimum
// is the better estimate when the medians are visibly disturbed.
//
// Usage:
//
//	go run ./cmd/benchtable [-unit ns/op|cpu-ns/op] [-stat median|min] results.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// sample holds every value a benchmark reported, by unit.
type sample map[string][]float64

var lineRE = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+(.*)$`)

func parse(r io.Reader) (map[string]sample, error) {
	res := map[string]sample{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := strings.Fields(m[3])
		if len(f)%2 != 0 {
			continue
		}
		s := res[m[1]]
		if s == nil {
			s = sample{}
			res[m[1]] = s
		}
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			s[f[i+1]] = append(s[f[i+1]], v)
		}
	}
	return res, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

type table struct{ res map[string]sample }

var stat = flag.String("stat", "median", "statistic of the runs of one benchmark: median or min")

// get returns the median (or minimum, with -stat min) of a benchmark's
// unit, or NaN.
func (t table) get(name, unit string) float64 {
	s, ok := t.res[name]
	if !ok || len(s[unit]) == 0 {
		return math.NaN()
	}
	if *stat == "min" {
		return slices.Min(s[unit])
	}
	return median(s[unit])
}

var unit = flag.String("unit", "ns/op", "the time unit compared: ns/op (wall time) or cpu-ns/op (process CPU time)")

// ns returns the time per op of a benchmark in the unit compared.
func (t table) ns(name string) float64 { return t.get(name, *unit) }

func dur(ns float64) string {
	switch {
	case math.IsNaN(ns):
		return "n/a"
	case ns < 0:
		return "−" + dur(-ns)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func verdict(ok bool) string {
	if ok {
		return "**PASS**"
	}
	return "**FAIL**"
}

var libs = []string{"tickettool-hmac", "tickettool-ed25519", "tickettool-hmac-dpop", "macaroon.v2", "macaroon.v2-bakery", "superfly", "biscuit"}
var peers = []string{"macaroon.v2", "macaroon.v2-bakery", "superfly", "biscuit"}

func (t table) ratioTable(w io.Writer, group string) {
	base := t.ns(group + "/tickettool-hmac")
	fmt.Fprintf(w, "| %s | time/op | time ÷ tickettool-hmac | B/op | allocs/op | encoded bytes |\n", group)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, l := range libs {
		n := group + "/" + l
		ns := t.ns(n)
		if math.IsNaN(ns) {
			fmt.Fprintf(w, "| %s | not run | | | | |\n", l)
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %.2f× | %s | %s | %s |\n", l, dur(ns), ns/base,
			num(t.get(n, "B/op")), num(t.get(n, "allocs/op")), num(t.get(n, "bytes")))
	}
	fmt.Fprintln(w)
}

func (t table) floors(w io.Writer) {
	hmac, ed, dp := t.ns("BenchmarkFullVerify/tickettool-hmac"), t.ns("BenchmarkFullVerify/tickettool-ed25519"), t.ns("BenchmarkFullVerify/tickettool-hmac-dpop")
	fh, fe, fj := t.ns("BenchmarkFloor/hmac"), t.ns("BenchmarkFloor/ed25519-sigs"), t.ns("BenchmarkFloor/gojose-es256")
	fmt.Fprintln(w, "| full verify | floor | floor time/op | full ÷ floor | full − floor |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	fmt.Fprintf(w, "| tickettool-hmac %s | hmac (minimal parser + K, T_0 … T_n + compare) | %s | %.2f× | %s |\n",
		dur(hmac), dur(fh), hmac/fh, dur(hmac-fh))
	fmt.Fprintf(w, "| tickettool-ed25519 %s | ed25519-sigs (4 × Verify + NewKeyFromSeed) | %s | %.3f× | %s |\n",
		dur(ed), dur(fe), ed/fe, dur(ed-fe))
	fmt.Fprintf(w, "| tickettool-hmac-dpop − tickettool-hmac = %s | gojose-es256 (ParseSignedCompact + Verify) | %s | %.2f× | %s |\n",
		dur(dp-hmac), dur(fj), (dp-hmac)/fj, dur(dp-hmac-fj))
	fmt.Fprintln(w)
}

// breakdown prints where the HMAC full verify's time goes, against the
// minimal floor.
func (t table) breakdown(w io.Writer) {
	full, floor := t.ns("BenchmarkFullVerify/tickettool-hmac"), t.ns("BenchmarkFloor/hmac")
	parse, chain, ver := t.ns("BenchmarkBreakdown/parse"), t.ns("BenchmarkBreakdown/chain"), t.ns("BenchmarkBreakdown/verify")
	fmt.Fprintln(w, "| part of the HMAC full verify | time/op | ÷ floor | allocs/op |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	row := func(name string, ns float64, allocs string) {
		fmt.Fprintf(w, "| %s | %s | %.2f× | %s |\n", name, dur(ns), ns/floor, allocs)
	}
	row("floor: minimal parser + chain (BenchmarkFloor/hmac)", floor, num(t.get("BenchmarkFloor/hmac", "allocs/op")))
	row("parse: token.Parse (base64url, strict CBOR, caveats decoded and checked)", parse, num(t.get("BenchmarkBreakdown/parse", "allocs/op")))
	row("chain: VerifyChain (K, T_0 … T_n, compare, a block id per block)", chain, num(t.get("BenchmarkBreakdown/chain", "allocs/op")))
	row("checks: verify.Verify − VerifyChain (narrowing, policy, caveats)", ver-chain, "")
	row("sum of the parts", parse+ver, "")
	row("full verify, measured (BenchmarkFullVerify/tickettool-hmac)", full, num(t.get("BenchmarkFullVerify/tickettool-hmac", "allocs/op")))
	fmt.Fprintln(w)
}

func (t table) targets(w io.Writer) {
	hmac := t.ns("BenchmarkFullVerify/tickettool-hmac")
	ed := t.ns("BenchmarkFullVerify/tickettool-ed25519")
	dp := t.ns("BenchmarkFullVerify/tickettool-hmac-dpop")
	fastest, fastestName := math.Inf(1), ""
	for _, p := range peers {
		if v := t.ns("BenchmarkFullVerify/" + p); v < fastest {
			fastest, fastestName = v, p
		}
	}
	allocs := t.get("BenchmarkFullVerify/tickettool-hmac", "allocs/op")
	fh, fe, fj := t.ns("BenchmarkFloor/hmac"), t.ns("BenchmarkFloor/ed25519-sigs"), t.ns("BenchmarkFloor/gojose-es256")
	bis := t.ns("BenchmarkFullVerify/biscuit")

	fmt.Fprintln(w, "| target | measured | verdict |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| HMAC full verify ≤ 0.5× the fastest peer | %s ÷ %s (%s) = %.2f× | %s |\n",
		dur(hmac), dur(fastest), fastestName, hmac/fastest, verdict(hmac <= 0.5*fastest))
	bk := t.ns("BenchmarkFullVerify/macaroon.v2-bakery")
	fmt.Fprintf(w, "| HMAC full verify ≤ 0.5× macaroon.v2 with its bakery checkers (the issue's configuration) | %s ÷ %s = %.2f× | %s |\n",
		dur(hmac), dur(bk), hmac/bk, verdict(hmac <= 0.5*bk))
	fmt.Fprintf(w, "| HMAC full verify within 2× of the floor (minimal parser) | %s ÷ %s = %.2f× | %s |\n",
		dur(hmac), dur(fh), hmac/fh, verdict(hmac <= 2*fh))
	fmt.Fprintf(w, "| HMAC full verify ≤ 15 allocations | %s allocs/op | %s |\n", num(allocs), verdict(allocs <= 15))
	fmt.Fprintf(w, "| Ed25519 full verify ≤ 1.15× its signature checks alone | %s ÷ %s = %.3f× | %s |\n",
		dur(ed), dur(fe), ed/fe, verdict(ed <= 1.15*fe))
	fmt.Fprintf(w, "| Ed25519 full verify ≥ 50× faster than biscuit | %s ÷ %s = %.2f× | %s |\n",
		dur(bis), dur(ed), bis/ed, verdict(bis >= 50*ed))
	fmt.Fprintf(w, "| (not a target) HMAC full verify faster than biscuit by | %s ÷ %s = %.1f× | |\n",
		dur(bis), dur(hmac), bis/hmac)
	fmt.Fprintf(w, "| DPoP-bound verify ≤ HMAC verify + 1.1× go-jose parse+verify | %s vs %s + 1.1 × %s = %s (%.2f× the budget) | %s |\n",
		dur(dp), dur(hmac), dur(fj), dur(hmac+1.1*fj), dp/(hmac+1.1*fj), verdict(dp <= hmac+1.1*fj))
	size := t.get("BenchmarkFullVerify/tickettool-hmac", "bytes")
	ok := true
	var parts []string
	for _, p := range peers {
		ps := t.get("BenchmarkFullVerify/"+p, "bytes")
		ok = ok && size < ps
		parts = append(parts, fmt.Sprintf("%s %s B", p, num(ps)))
	}
	fmt.Fprintf(w, "| encoded size smaller than every peer (HMAC mode) | %s B vs %s | %s |\n", num(size), strings.Join(parts, ", "), verdict(ok))
	fmt.Fprintln(w)
}

// scale prints one scale table: time against size, with the local growth
// exponent log(t2/t1)/log(n2/n1) between consecutive sizes (1 is linear;
// above 1 is worse than linear) and the marginal cost per added unit.
func (t table) scale(w io.Writer, prefix, unit string, sizes []int) bool {
	fmt.Fprintf(w, "| %s | time/op | × size %d | marginal per added %s | growth exponent | encoded bytes | B/op | allocs/op |\n", unit, sizes[0], unit)
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|")
	linear := true
	base := t.ns(fmt.Sprintf("%s/%d", prefix, sizes[0]))
	for i, n := range sizes {
		name := fmt.Sprintf("%s/%d", prefix, n)
		ns := t.ns(name)
		marg, exp := "", ""
		if i > 0 {
			pn, pns := sizes[i-1], t.ns(fmt.Sprintf("%s/%d", prefix, sizes[i-1]))
			marg = dur((ns - pns) / float64(n-pn))
			e := math.Log(ns/pns) / math.Log(float64(n)/float64(pn))
			exp = fmt.Sprintf("%.2f", e)
			if e > 1.1 {
				linear = false
			}
		}
		fmt.Fprintf(w, "| %d | %s | %.2f× | %s | %s | %s | %s | %s |\n", n, dur(ns), ns/base, marg, exp,
			num(t.get(name, "bytes")), num(t.get(name, "B/op")), num(t.get(name, "allocs/op")))
	}
	fmt.Fprintln(w)
	return linear
}

func main() {
	flag.Parse()
	if flag.NArg() != 1 || (*stat != "median" && *stat != "min") || (*unit != "ns/op" && *unit != "cpu-ns/op") {
		fmt.Fprintln(os.Stderr, "usage: benchtable [-unit ns/op|cpu-ns/op] [-stat median|min] results.txt")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	res, err := parse(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t := table{res}
	w := os.Stdout

	fmt.Fprintf(w, "(times in %s; every figure is the %s of the runs of each benchmark in %s)\n\n", *unit, *stat, flag.Arg(0))
	fmt.Fprintln(w, "### Full verify (decode + verify), ratios to tickettool-hmac")
	fmt.Fprintln(w)
	t.ratioTable(w, "BenchmarkFullVerify")
	fmt.Fprintln(w, "### Mint (mint + 3 attenuations + encode), ratios to tickettool-hmac")
	fmt.Fprintln(w)
	t.ratioTable(w, "BenchmarkMint")
	fmt.Fprintln(w, "### Floors")
	fmt.Fprintln(w)
	t.floors(w)
	fmt.Fprintln(w, "### Where the HMAC verify's time goes")
	fmt.Fprintln(w)
	t.breakdown(w)
	fmt.Fprintln(w, "### Targets")
	fmt.Fprintln(w)
	t.targets(w)

	fmt.Fprintln(w, "### Scale: HMAC full verify against the number of blocks")
	fmt.Fprintln(w)
	lb := t.scale(w, "BenchmarkScaleBlocks", "block", []int{1, 2, 4, 8, 16, 32})
	lists := map[string]bool{}
	for _, kind := range []string{"tools", "paths"} {
		fmt.Fprintf(w, "### Scale: HMAC full verify against the size of the %s list in block 0\n\n", kind)
		lists[kind] = t.scale(w, "BenchmarkScaleList/"+kind, "entry", []int{1, 10, 100, 1000})
	}
	fmt.Fprintf(w, "Growth no worse than linear (every growth exponent ≤ 1.1): blocks %s, tools list %s, paths list %s.\n\n",
		verdict(lb), verdict(lists["tools"]), verdict(lists["paths"]))

	fmt.Fprintln(w, "### Parallel (HMAC full verify)")
	fmt.Fprintln(w)
	s, p := t.get("BenchmarkVerifyParallel/serial", "ns/op"), t.get("BenchmarkVerifyParallel/parallel", "ns/op")
	cs, cp := t.get("BenchmarkVerifyParallel/serial", "cpu-ns/op"), t.get("BenchmarkVerifyParallel/parallel", "cpu-ns/op")
	fmt.Fprintln(w, "| | wall time/op | CPU time/op |")
	fmt.Fprintln(w, "|---|---:|---:|")
	fmt.Fprintf(w, "| serial (b.Loop) | %s | %s |\n", dur(s), dur(cs))
	fmt.Fprintf(w, "| RunParallel (GOMAXPROCS goroutines) | %s | %s |\n", dur(p), dur(cp))
	fmt.Fprintf(w, "| ratio | serial ÷ parallel = **%.2f×** throughput | parallel ÷ serial = %.2f× CPU per op |\n", s/p, cp/cs)
}
