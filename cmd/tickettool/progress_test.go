package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClock returns a clock that advances by step at every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

// withSeams replaces the terminal test and the clock for one test.
func withSeams(t *testing.T, term bool, step time.Duration) {
	oldTerm, oldNow := isTerminal, progressNow
	t.Cleanup(func() { isTerminal, progressNow = oldTerm, oldNow })
	isTerminal = func(io.Writer) bool { return term }
	progressNow = fakeClock(step)
}

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		name  string
		term  bool
		step  time.Duration // the clock's advance at each reading
		total int64
		n     int // updates
		want  string
	}{
		{"not a terminal", false, time.Second, 1 << 40, 10, ""},
		{"fast and small: nothing", true, time.Millisecond, 1000, 500, ""},
		// 100ms a reading: the line appears after 1s (update 10), then at
		// most every 200ms (every second update); done erases it.
		{"slow", true, 100 * time.Millisecond, 1000, 14,
			"\rjob: 10 records, 1%, 10 records/s\rjob: 12 records, 1%, 10 records/s\rjob: 14 records, 1%, 10 records/s\r" +
				strings.Repeat(" ", 33) + "\r"},
		// large: from the first update, at most every 200ms
		{"large", true, 150 * time.Millisecond, progressLargeBytes, 3,
			"\rjob: 1 records, 0%, 7 records/s\rjob: 3 records, 0%, 7 records/s\r" + strings.Repeat(" ", 31) + "\r"},
	} {
		withSeams(t, tc.term, tc.step)
		var b bytes.Buffer
		p := newProgress(&b, "job", tc.total)
		for i := 1; i <= tc.n; i++ {
			p.update(int64(i), int64(i))
		}
		p.done()
		if b.String() != tc.want {
			t.Errorf("%s: wrote %q, want %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestProgressPads: a shorter line blanks the rest of the longer one
// before it.
func TestProgressPads(t *testing.T) {
	withSeams(t, true, time.Second)
	var b bytes.Buffer
	p := newProgress(&b, "job", 0)
	p.update(1000, 0)
	p.update(1, 0)
	if want := "\rjob: 1000 records, 1000 records/s\rjob: 1 records, 0 records/s      "; b.String() != want {
		t.Fatalf("wrote %q, want %q", b.String(), want)
	}
}

// TestFileIsTerminal: a regular file and a pipe are no terminal.
func TestFileIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, x := range []io.Writer{f, w, &bytes.Buffer{}} {
		if fileIsTerminal(x) {
			t.Errorf("%s is a terminal", fmt.Sprintf("%T", x))
		}
	}
}
