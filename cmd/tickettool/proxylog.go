package main

import (
	"io"
	"sync"
)

// batchedLog writes the proxy's decision lines from one goroutine, as
// many as have queued since its last write, so that a busy proxy makes
// one system call per batch of decisions rather than per decision.
// Lines are written in order; Close writes what is queued. Past
// maxQueuedLog bytes queued, a writer waits for the batch in progress.
type batchedLog struct {
	w       io.Writer
	mu      sync.Mutex
	queued  []byte
	wake    chan struct{}
	done    chan struct{}
	closed  bool
	writing sync.Mutex // held while a batch is written
}

func newBatchedLog(w io.Writer) *batchedLog {
	l := &batchedLog{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go l.loop()
	return l
}

// Write queues p, one or more whole lines.
func (l *batchedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return l.w.Write(p)
	}
	l.queued = append(l.queued, p...)
	full := len(l.queued) > maxQueuedLog
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	if full {
		l.flush()
	}
	return len(p), nil
}

func (l *batchedLog) loop() {
	defer close(l.done)
	for range l.wake {
		l.flush()
	}
}

// flush writes what is queued.
func (l *batchedLog) flush() {
	l.writing.Lock()
	defer l.writing.Unlock()
	l.mu.Lock()
	b := l.queued
	l.queued = nil
	l.mu.Unlock()
	if len(b) > 0 {
		l.w.Write(b)
	}
}

// Close writes what is queued and stops the writer; later writes go
// straight through.
func (l *batchedLog) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.mu.Unlock()
	close(l.wake)
	<-l.done
	l.flush()
}
