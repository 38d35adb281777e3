package chain

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGroupCommitOwnErrors checks that in a group commit a record that
// cannot be written fails its own Append only: the others sharing its
// write are written and acknowledged, in the log, in order.
func TestGroupCommitOwnErrors(t *testing.T) {
	sk := seedKey(t, "k", 1)
	l, p := openTemp(t, sk)
	if _, err := l.Append(fullRecord(0), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 20
	var wg sync.WaitGroup
	acked := make(chan Record, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				r, now := Record{Kind: KindAllowed, Note: fmt.Sprintf("w%d-%d", w, i)}, t0.Add(time.Hour)
				var want error
				switch (w + i) % 5 {
				case 1:
					r.Tool, want = strings.Repeat("x", MaxNameBytes+1), ErrMalformed
				case 2:
					now, want = t0, ErrClockBackwards
				}
				got, err := l.Append(r, now)
				switch {
				case want == nil && err != nil:
					t.Errorf("w%d-%d: %v", w, i, err)
				case want != nil && !errors.Is(err, want):
					t.Errorf("w%d-%d: %v, want %v", w, i, err, want)
				case err == nil:
					acked <- got
				}
			}
		})
	}
	wg.Wait()
	close(acked)
	checkAcked(t, p, sk, acked, 1+int64(len(acked)))
}

// TestFailedSyncStops checks that after a failed fsync no Append is
// acknowledged: not the batch written while the failing fsync ran (its
// own fsync succeeds, but its records follow lost ones), nor any later.
func TestFailedSyncStops(t *testing.T) {
	sk := seedKey(t, "k", 1)
	l, _ := openTemp(t, sk)
	inSync, calls := make(chan struct{}), 0
	l.syncErr = func() error {
		if calls++; calls == 1 {
			close(inSync)
			time.Sleep(100 * time.Millisecond) // the second Append writes meanwhile
			return errors.New("injected")
		}
		return nil
	}
	errs := make(chan error, 2)
	go func() { _, err := l.Append(fullRecord(0), t0); errs <- err }()
	<-inSync
	go func() { _, err := l.Append(fullRecord(1), t0); errs <- err }()
	for range 2 {
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "appends stopped") {
			t.Errorf("Append after a failed fsync: %v", err)
		}
	}
	if _, err := l.Append(fullRecord(2), t0); err == nil {
		t.Error("Append after a failed fsync succeeded")
	}
}
