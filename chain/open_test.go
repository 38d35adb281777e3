package chain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestOpenDamage is Open's contract, one row per kind of damage: it reads
// the first record and the end of the log only (the log is longer than
// tailWindow), refuses what would make an append wrong (a torn tail, a
// damaged or unlinked last record, another key's, origin's or no log),
// and a forged record 0, and leaves damage between record 0 and the last
// two records to Verify.
func TestOpenDamage(t *testing.T) {
	for kname, sk := range testKeys(t) {
		const n = 600
		recs := makeRecords(t, sk, testOrigin, n)
		good := join(recs)
		if len(good) < 2*tailWindow {
			t.Fatalf("log of %d bytes is not longer than the tail window", len(good))
		}
		last := len(recs) - 1
		flip := func(k, i int) []byte { // record k's byte i (from its end when negative) flipped
			r := slices.Clone(recs[k])
			if i < 0 {
				i += len(r)
			}
			r[i] ^= 1
			return join(slices.Concat(recs[:k], [][]byte{r}, recs[k+1:]))
		}
		other := makeRecords(t, seedKey(t, "k", 9), testOrigin, 3)
		// Two long records at the end: more than quickRead, so Open reads
		// the whole window.
		long1 := seal(t, sk, Record{Seq: n, Time: t0.Add(time.Hour), Kind: KindOther, Note: strings.Repeat("x", MaxNoteBytes), Prev: Hash(recs[last])})
		long2 := seal(t, sk, Record{Seq: n + 1, Time: t0.Add(time.Hour), Kind: KindOther, Note: strings.Repeat("y", MaxNoteBytes), Prev: Hash(long1)})
		cases := []struct {
			name  string
			data  []byte
			want  error // nil: Open accepts and the next append is record n (or count)
			count int64
		}{
			{"clean", good, nil, n},
			{"empty", nil, nil, 0},
			{"one record", recs[0], nil, 1},
			{"long last records", slices.Concat(good, long1, long2), nil, n + 2},
			{"long last record's predecessor dropped", slices.Concat(good, long2), ErrBroken, 0},
			{"two records", join(recs[:2]), nil, 2},
			{"torn: map cut short", slices.Concat(good, recs[0][:20]), ErrTorn, 0},
			{"torn: zero bytes", slices.Concat(good, make([]byte, 100)), ErrTorn, 0},
			{"torn: the largest cut", slices.Concat(good, []byte{0xa9, 0x01, 0x00, 0x02, 0x00, 0x03, 0x01, 0x04, 0x59, 0x40, 0x00}, make([]byte, MaxRecordBytes-12)), ErrTorn, 0},
			{"torn record 0", recs[0][:30], ErrTorn, 0},
			{"last record's signature", flip(last, -1), ErrBroken, 0},
			{"last record's time", flip(last, 5), ErrBroken, 0},
			{"second to last dropped", join(slices.Concat(recs[:last-1], recs[last:])), ErrBroken, 0},
			{"last record twice", slices.Concat(good, recs[last]), ErrBroken, 0},
			{"second to last's signature", flip(last-1, -1), ErrBroken, 0},
			{"third to last's signature", flip(last-2, -1), nil, n},
			{"record 0's signature, two records", flip(0, -1)[:len(recs[0])+len(recs[1])], ErrBroken, 0},
			{"record 0's signature, one record", flip(0, -1)[:len(recs[0])], ErrWrongKey, 0},
			{"record 0 of another origin", slices.Concat(makeRecords(t, sk, "example.com/other", 1)[0], join(recs[1:])), ErrBroken, 0},
			{"garbage after the last", slices.Concat(good, []byte("garbage")), ErrBroken, 0},
			{"another key's record after the last", slices.Concat(good, other[2]), ErrBroken, 0},
			{"another key's log", join(other), ErrWrongKey, 0},
			{"not a log", []byte("#!/bin/sh\necho hello\n"), ErrNotLog, 0},
			{"record 0's signature", flip(0, -1), ErrBroken, 0},
			// Verify's, not Open's: the middle of the log.
			{"middle record's signature", flip(n/2, -1), nil, n},
			{"middle record dropped", join(slices.Concat(recs[:n/2], recs[n/2+1:])), nil, n},
			{"middle record cut short", join(slices.Concat(recs[:n/2], [][]byte{recs[n/2][:9]}, recs[n/2+1:])), nil, n},
		}
		for _, c := range cases {
			name := kname + ": " + c.name
			p := writeLog(t, c.data)
			l, err := Open(p, sk, testOrigin)
			if c.want != nil {
				if !errors.Is(err, c.want) {
					t.Errorf("%s: Open: %v, want %v", name, err, c.want)
				}
				if err == nil {
					l.Close()
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: Open: %v", name, err)
				continue
			}
			r, err := l.Append(fullRecord(1), t0.Add(time.Hour))
			l.Close()
			if err != nil || r.Seq != uint64(c.count) {
				t.Errorf("%s: Append: seq %d, %v; want seq %d", name, r.Seq, err, c.count)
			}
		}
	}
	// Another origin: record 0 is not bound to it.
	p := writeLog(t, join(makeRecords(t, seedKey(t, "k", 1), testOrigin, 3)))
	if _, err := Open(p, seedKey(t, "k", 1), "example.com/other"); !errors.Is(err, ErrBroken) {
		t.Errorf("another origin: %v", err)
	}
}

// TestOpenAppendPaired measures Open + Append + Close on a log of 100,000
// records against an empty log, as ABBA pairs in one process, and requires
// the median ratio to be at most 1.2. Set TICKETTOOL_PAIRS=1 to run it.
func TestOpenAppendPaired(t *testing.T) {
	if os.Getenv("TICKETTOOL_PAIRS") != "1" {
		t.Skip("set TICKETTOOL_PAIRS=1 to measure")
	}
	const records, pairs, batch = 100_000, 15, 10
	for kname, sk := range testKeys(t) {
		dir := t.TempDir()
		big := filepath.Join(dir, "big.cbor")
		l, err := Open(big, sk, testOrigin)
		if err != nil {
			t.Fatal(err)
		}
		rs := make([]Record, MaxBatch)
		for i := range rs {
			rs[i] = fullRecord(i)
		}
		for done := 0; done < records; done += len(rs) {
			if _, err := l.AppendBatch(rs[:min(len(rs), records-done)], t0); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		empties := 0
		run := func(path func() string) time.Duration {
			paths := make([]string, batch)
			for i := range paths {
				paths[i] = path()
			}
			start := time.Now()
			for _, p := range paths {
				l, err := Open(p, sk, testOrigin)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := l.Append(fullRecord(1), t0); err != nil {
					t.Fatal(err)
				}
				l.Close()
			}
			return time.Since(start)
		}
		bigPath := func() string { return big }
		emptyPath := func() string { // an existing empty file, as the big log exists
			empties++
			p := filepath.Join(dir, fmt.Sprintf("empty-%d.cbor", empties))
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}
		run(bigPath) // warm up
		run(emptyPath)
		ratios := make([]float64, pairs)
		for i := range ratios {
			a1 := run(bigPath)
			b1 := run(emptyPath)
			b2 := run(emptyPath)
			a2 := run(bigPath)
			ratios[i] = float64(a1+a2) / float64(b1+b2)
		}
		sort.Float64s(ratios)
		med := ratios[len(ratios)/2]
		t.Logf("%s: Open+Append, %d records vs empty: median %.3f, range %.3f..%.3f (%d ABBA pairs of %d)",
			kname, records, med, ratios[0], ratios[len(ratios)-1], pairs, batch)
		if med > 1.2 {
			t.Errorf("%s: median ratio %.3f > 1.2", kname, med)
		}
	}
}
