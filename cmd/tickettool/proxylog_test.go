package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Every line written to the batched log comes out whole, each writer's in
// its order, and Close writes what was queued.
func TestBatchedLog(t *testing.T) {
	var out strings.Builder
	l := newBatchedLog(&lockedWriter{w: &out})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				fmt.Fprintf(&prefixWriter{w: l, prefix: "p: "}, "writer %d line %d\n", g, i)
			}
		})
	}
	wg.Wait()
	l.Close()
	l.Write([]byte("after close\n"))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2001 || lines[2000] != "after close" {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	next := map[int]int{}
	for _, ln := range lines[:2000] {
		var g, i int
		if _, err := fmt.Sscanf(ln, "p: writer %d line %d", &g, &i); err != nil || i != next[g] {
			t.Fatalf("line %q: %v, want line %d of writer %d", ln, err, next[g], g)
		}
		next[g]++
	}
}
