package chain

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

// replay runs the replay of data with workers and returns its summary
// (without the stored hashes) or its error, as text, and the progress
// calls it made.
func replay(data []byte, k *key.Verifying, workers int) (string, []int64) {
	var calls []int64
	v := newReplayer(k, testOrigin)
	v.progress = func(records, bytes int64) { calls = append(calls, records, bytes) }
	sum, err := v.runWith(bytes.NewReader(data), workers)
	if err != nil {
		return fmt.Sprintf("%T %v %+v", err, err, err), calls
	}
	return fmt.Sprintf("%d %d %x %x %v", sum.Count, sum.Size, sum.Head, sum.Root, sum.LastTime), calls
}

// TestParallelSameResult checks that the parallel replay reports exactly
// what the sequential one does (the same summary, or the same first break,
// index, offset, reason, torn or not, or the same key error) on logs
// damaged at every byte of records at the edges of its batches, cut at
// those records, and signed with other keys.
func TestParallelSameResult(t *testing.T) {
	for kname, sk := range testKeys(t) {
		const n = 2*parallelBatch + 10
		recs := makeRecords(t, sk, testOrigin, n)
		good := join(recs)
		at := offsets(recs)
		logs := [][]byte{good, nil, recs[0], join(makeRecords(t, seedKey(t, "other", 3), testOrigin, n))}
		edges := []int{0, 1, parallelBatch - 1, parallelBatch, parallelBatch + 1, n - 1}
		if kname == "ed25519" {
			edges = []int{0, parallelBatch} // slow: a handful of bytes only
		}
		for _, k := range edges {
			step := 1
			if kname == "ed25519" {
				step = 37
			}
			for i := 0; i < len(recs[k]); i += step {
				b := slices.Clone(good)
				b[at[k]+i] ^= 0x41
				logs = append(logs, b)
			}
			logs = append(logs, good[:at[k]+len(recs[k])/2], slices.Concat(good[:at[k]], good[at[k]+1:]))
		}
		// Record 0 of another key before this key's records: a break, not a key error.
		other := makeRecords(t, seedKey(t, "other", 3), testOrigin, 1)[0]
		logs = append(logs, slices.Concat(other, good[at[1]:]), slices.Concat(other, good[at[1]:at[5]]),
			slices.Concat(other, make([]byte, 10)))
		for i, data := range logs {
			seq, seqCalls := replay(data, sk.Verifying(), 1)
			par, parCalls := replay(data, sk.Verifying(), 2)
			if seq != par || !slices.Equal(seqCalls, parCalls) {
				t.Fatalf("%s: log %d: sequential %s, parallel %s (progress calls %d, %d)", kname, i, seq, par, len(seqCalls), len(parCalls))
			}
		}
	}
}

// TestVerifyCoresPaired measures Verify's rate on a log of 100,000
// Ed25519 records with GOMAXPROCS 1 and 2, as ABBA pairs in one process,
// and requires the median ratio to be at least 1.7. Set
// TICKETTOOL_PAIRS=1 to run it.
func TestVerifyCoresPaired(t *testing.T) {
	if os.Getenv("TICKETTOOL_PAIRS") != "1" {
		t.Skip("set TICKETTOOL_PAIRS=1 to measure")
	}
	const records, pairs = 100_000, 3
	sk := seedKey(t, "k", 1)
	l, p := openTemp(t, sk)
	rs := make([]Record, MaxBatch)
	for i := range rs {
		rs[i] = fullRecord(i)
	}
	for done := 0; done < records; done += len(rs) {
		if _, err := l.AppendBatch(rs[:min(len(rs), records-done)], t0); err != nil {
			t.Fatal(err)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	run := func(procs int) time.Duration {
		runtime.GOMAXPROCS(procs)
		start := time.Now()
		if sum, err := Verify(p, sk.Verifying(), testOrigin); err != nil || sum.Count != records {
			t.Fatal(sum, err)
		}
		return time.Since(start)
	}
	ratios := make([]float64, pairs)
	for i := range ratios {
		a1, b1, b2, a2 := run(2), run(1), run(1), run(2)
		ratios[i] = float64(b1+b2) / float64(a1+a2) // rate on 2 cores / rate on 1
		t.Logf("pair %d: 1 core %v %v, 2 cores %v %v", i, b1, b2, a1, a2)
	}
	sort.Float64s(ratios)
	med := ratios[len(ratios)/2]
	t.Logf("Verify, %d Ed25519 records: 2 cores / 1 core rate median %.2f, range %.2f..%.2f (%d ABBA pairs)",
		records, med, ratios[0], ratios[len(ratios)-1], pairs)
	if med < 1.7 {
		t.Errorf("2 cores verify %.2fx the rate of one, want at least 1.7x", med)
	}
}
