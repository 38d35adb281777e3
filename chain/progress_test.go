package chain

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"testing"
)

// TestVerifyFileProgress: Progress sees every record that verified, in
// order, with the bytes up to its end; and VerifyFile decides exactly as
// Verify and VerifyCheckpoint do.
func TestVerifyFileProgress(t *testing.T) {
	sk := seedKey(t, "test-key", 7)
	recs := makeRecords(t, sk, testOrigin, 5)
	p := writeLog(t, join(recs))
	cp, err := MakeCheckpoint(p, sk, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	for _, withCP := range []bool{false, true} {
		var got [][2]int64
		opts := VerifyOptions{Progress: func(n, b int64) { got = append(got, [2]int64{n, b}) }}
		if withCP {
			opts.Checkpoint = cp
		}
		sum, err := VerifyFile(p, sk.Verifying(), testOrigin, opts)
		if err != nil || sum.Count != 5 {
			t.Fatalf("checkpoint %v: %+v %v", withCP, sum, err)
		}
		var end int64
		for i, g := range got {
			end += int64(len(recs[i]))
			if g != [2]int64{int64(i + 1), end} {
				t.Fatalf("checkpoint %v: progress %v, want %d records and %d bytes at call %d", withCP, got, i+1, end, i)
			}
		}
		if len(got) != 5 {
			t.Fatalf("checkpoint %v: %d progress calls, want 5", withCP, len(got))
		}
	}

	// A break stops the progress at the last record that verified.
	data := join(recs)
	data[len(recs[0])+len(recs[1])+10] ^= 1
	var last int64
	_, err = VerifyFile(writeLog(t, data), sk.Verifying(), testOrigin, VerifyOptions{Progress: func(n, _ int64) { last = n }})
	wantBreak(t, err, 2, false)
	if last != 2 {
		t.Fatalf("progress reached %d records, want 2", last)
	}
	// The checkpoint is checked as VerifyCheckpoint checks it.
	_, err = VerifyFile(writeLog(t, join(recs[:3])), sk.Verifying(), testOrigin, VerifyOptions{Checkpoint: cp})
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("truncated log: %v", err)
	}
	if _, err := VerifyFile(p, sk.Verifying(), "bad origin", VerifyOptions{}); err == nil {
		t.Fatal("bad origin verified")
	}
}

// TestVerifyFileEach: Each sees exactly the records that verified, in
// order, as Scan decodes them, with or without a checkpoint, on one core
// and on several; a changed byte stops it before the broken record.
func TestVerifyFileEach(t *testing.T) {
	sk := seedKey(t, "test-key", 7)
	recs := makeRecords(t, sk, testOrigin, 300)
	p := writeLog(t, join(recs))
	cp, err := MakeCheckpoint(p, sk, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	var want []Record
	for ent, err := range Scan(bytes.NewReader(join(recs))) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ent.Record)
	}
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		for _, c := range [][]byte{nil, cp} {
			var got []Record
			_, err := VerifyFile(p, sk.Verifying(), testOrigin, VerifyOptions{Checkpoint: c,
				Each: func(i int64, r Record) {
					if i != int64(len(got)) {
						t.Errorf("Each index %d after %d records", i, len(got))
					}
					got = append(got, r)
				}})
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("procs %d checkpoint %v: %d records, err %v", procs, c != nil, len(got), err)
			}
		}
		data := join(recs)
		off := 0
		for _, r := range recs[:200] {
			off += len(r)
		}
		data[off+10] ^= 1
		var n int64
		_, err := VerifyFile(writeLog(t, data), sk.Verifying(), testOrigin, VerifyOptions{Each: func(i int64, _ Record) { n = i + 1 }})
		wantBreak(t, err, 200, false)
		if n != 200 {
			t.Fatalf("procs %d: Each reached %d records past a break at 200", procs, n)
		}
		runtime.GOMAXPROCS(old)
	}
}
