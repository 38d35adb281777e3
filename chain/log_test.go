package chain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

func TestAppendVerify(t *testing.T) {
	for name, sk := range testKeys(t) {
		l, p := openTemp(t, sk)
		var heads [][32]byte
		for i := range 5 {
			r, err := l.Append(fullRecord(i), t0.Add(time.Duration(i)*time.Millisecond))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Seq != uint64(i) || r.Alg != sk.Alg() || !r.Time.Equal(t0.Add(time.Duration(i)*time.Millisecond)) {
				t.Fatalf("%s: appended %+v", name, r)
			}
			b, _ := r.Marshal()
			heads = append(heads, Hash(b))
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(fullRecord(0), t0); !errors.Is(err, ErrClosed) {
			t.Fatalf("%s: append after close: %v", name, err)
		}
		sum, err := Verify(p, sk.Verifying(), testOrigin)
		if err != nil || sum.Count != 5 || sum.Head != heads[4] || !sum.LastTime.Equal(t0.Add(4*time.Millisecond)) {
			t.Fatalf("%s: %+v %v", name, sum, err)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: log mode %v", name, st.Mode())
		}
		// Reopen: the chain continues.
		l2, err := Open(p, sk, testOrigin)
		if err != nil {
			t.Fatal(err)
		}
		r, err := l2.Append(Record{Kind: KindOther, Note: "again"}, t0.Add(time.Second))
		if err != nil || r.Seq != 5 || r.Prev != heads[4] {
			t.Fatalf("%s: after reopen: %+v %v", name, r, err)
		}
		l2.Close()
		if sum, err := Verify(p, sk.Verifying(), testOrigin); err != nil || sum.Count != 6 {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestEmptyLog(t *testing.T) {
	sk := seedKey(t, "k", 1)
	_, p := openTemp(t, sk)
	sum, err := Verify(p, sk.Verifying(), testOrigin)
	if err != nil || sum.Count != 0 || sum.Head != OriginHash(testOrigin) || !sum.LastTime.IsZero() {
		t.Fatalf("%+v %v", sum, err)
	}
}

func TestAppendTime(t *testing.T) {
	sk := seedKey(t, "k", 1)
	l, p := openTemp(t, sk)
	if _, err := l.Append(Record{Kind: KindIntent}, t0); err != nil {
		t.Fatal(err)
	}
	// A little behind (a writer that read the clock before the lock): clamped.
	r, err := l.Append(Record{Kind: KindIntent}, t0.Add(-MaxClockStepBack))
	if err != nil || !r.Time.Equal(t0) {
		t.Fatalf("clamp: %v %v", r.Time, err)
	}
	// Far behind: refused.
	if _, err := l.Append(Record{Kind: KindIntent}, t0.Add(-MaxClockStepBack-time.Millisecond)); !errors.Is(err, ErrClockBackwards) {
		t.Fatalf("backwards: %v", err)
	}
	// Sub-millisecond precision is dropped.
	r, err = l.Append(Record{Kind: KindIntent}, t0.Add(1500*time.Microsecond))
	if err != nil || !r.Time.Equal(t0.Add(time.Millisecond)) {
		t.Fatalf("truncate: %v %v", r.Time, err)
	}
	// Out of range.
	if _, err := l.Append(Record{Kind: KindIntent}, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Fatal("year 10000 accepted")
	}
	if sum, err := Verify(p, sk.Verifying(), testOrigin); err != nil || sum.Count != 3 {
		t.Fatalf("%v", err)
	}
}

func TestAppendRefusesBadRecords(t *testing.T) {
	sk := seedKey(t, "k", 1)
	l, p := openTemp(t, sk)
	bad := []Record{{Kind: 0}, {Kind: KindAllowed, Tool: "\xff"}, {Kind: KindAllowed, Block: -1}}
	for _, r := range bad {
		if _, err := l.Append(r, t0); !errors.Is(err, ErrMalformed) {
			t.Fatalf("%+v: %v", r, err)
		}
	}
	if _, err := l.AppendBatch([]Record{{Kind: KindAllowed}, {Kind: 0}}, t0); !errors.Is(err, ErrMalformed) {
		t.Fatalf("batch: %v", err)
	}
	if _, err := l.AppendBatch(nil, t0); err == nil {
		t.Fatal("empty batch accepted")
	}
	if st, _ := os.Stat(p); st.Size() != 0 {
		t.Fatal("a refused record was written")
	}
}

func TestAppendBatch(t *testing.T) {
	sk := hmacKey(t, "k", 1)
	l, p := openTemp(t, sk)
	batch := make([]Record, 10)
	for i := range batch {
		batch[i] = fullRecord(i)
	}
	out, err := l.AppendBatch(batch, t0)
	if err != nil || len(out) != 10 || out[9].Seq != 9 {
		t.Fatalf("%v", err)
	}
	if _, err := l.Append(Record{Kind: KindOther}, t0); err != nil {
		t.Fatal(err)
	}
	if sum, err := Verify(p, sk.Verifying(), testOrigin); err != nil || sum.Count != 11 {
		t.Fatalf("%v", err)
	}
}

func TestOpenChecks(t *testing.T) {
	sk := seedKey(t, "k", 1)
	l, p := openTemp(t, sk)
	for i := range 3 {
		if _, err := l.Append(fullRecord(i), t0); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if _, err := Open(p, sk, "example.com/other"); !errors.Is(err, ErrBroken) {
		t.Fatalf("other origin: %v", err)
	}
	if _, err := Open(p, seedKey(t, "k", 2), testOrigin); !errors.Is(err, ErrWrongKey) || errors.Is(err, ErrBroken) {
		t.Fatalf("other key: %v", err)
	}
	// A nil or zero key opens nothing and creates no file.
	fresh := filepath.Join(t.TempDir(), "fresh.log")
	for _, k := range []*key.Signing{nil, {}} {
		if _, err := Open(fresh, k, testOrigin); !errors.Is(err, errNoKey) {
			t.Fatalf("Open with %v: %v", k, err)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Fatalf("Open with %v created the log", k)
		}
		if _, err := MakeCheckpoint(p, k, testOrigin); !errors.Is(err, errNoKey) {
			t.Fatalf("MakeCheckpoint with %v: %v", k, err)
		}
	}
	for _, origin := range []string{"", "has space", "a+b", "nl\n", string(make([]byte, MaxOriginBytes+1))} {
		if _, err := Open(p, sk, origin); err == nil {
			t.Fatalf("origin %q accepted", origin)
		}
	}
	if _, err := Open(t.TempDir(), sk, testOrigin); err == nil {
		t.Fatal("directory opened as a log")
	}
}

// TestOtherWriterAppends checks that a Log notices, checks and continues
// records appended by another Log on the same file, and notices a forged
// append.
func TestOtherWriterAppends(t *testing.T) {
	sk := seedKey(t, "k", 1)
	a, p := openTemp(t, sk)
	b, err := Open(p, sk, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range 6 {
		w := a
		if i%2 == 1 {
			w = b
		}
		if r, err := w.Append(fullRecord(i), t0); err != nil || r.Seq != uint64(i) {
			t.Fatalf("%d: %v", i, err)
		}
	}
	// A forged record appended behind the Logs' backs is refused.
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	forged := makeRecords(t, seedKey(t, "k", 9), testOrigin, 7)[6]
	f.Write(forged)
	f.Close()
	if _, err := a.Append(fullRecord(7), t0); !errors.Is(err, ErrBroken) {
		t.Fatalf("forged tail: %v", err)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	sk := seedKey(t, "k", 1)
	l, p := openTemp(t, sk)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	acked := make(chan Record, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				r, err := l.Append(Record{Kind: KindAllowed, Note: fmt.Sprintf("w%d-%d", w, i)}, time.Now())
				if err != nil {
					t.Error(err)
					return
				}
				acked <- r
			}
		})
	}
	wg.Wait()
	close(acked)
	checkAcked(t, p, sk, acked, workers*each)
}

// checkAcked verifies the log and that every acknowledged record is in it,
// at its sequence number, byte for byte.
func checkAcked(t *testing.T, path string, sk *key.Signing, acked <-chan Record, want int64) {
	t.Helper()
	sum, err := Verify(path, sk.Verifying(), testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	if want >= 0 && sum.Count != want {
		t.Fatalf("count %d, want %d", sum.Count, want)
	}
	f, _ := os.Open(path)
	defer f.Close()
	var inLog [][]byte
	for e, err := range Scan(f) {
		if err != nil {
			t.Fatal(err)
		}
		inLog = append(inLog, e.Bytes)
	}
	for r := range acked {
		b, _ := r.Marshal()
		if r.Seq >= uint64(len(inLog)) || string(inLog[r.Seq]) != string(b) {
			t.Fatalf("acknowledged record %d (%s) is not in the log", r.Seq, r.Note)
		}
	}
}

// TestTailRewritten checks that a Log notices its cached last record
// rewritten in place (same size) before appending after it.
func TestTailRewritten(t *testing.T) {
	sk := seedKey(t, "k", 1)
	l, p := openTemp(t, sk)
	for i := range 3 {
		if _, err := l.Append(fullRecord(i), t0); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(p)
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt([]byte{data[len(data)-1] ^ 1}, int64(len(data)-1)) // the last signature byte
	f.Close()
	if _, err := l.Append(fullRecord(3), t0); !errors.Is(err, ErrBroken) {
		t.Fatalf("append after a rewritten tail: %v", err)
	}
}
