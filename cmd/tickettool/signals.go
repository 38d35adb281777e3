package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// cancelOnSignal returns a context that SIGINT or SIGTERM cancels, the
// channel that then holds the signal (so the command ends with 128 plus
// its number), and the function that stops listening for them.
func cancelOnSignal() (context.Context, <-chan os.Signal, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	stoppedBy := make(chan os.Signal, 1)
	go func() {
		select {
		case s := <-sigs:
			stoppedBy <- s
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, stoppedBy, func() {
		signal.Stop(sigs)
		cancel()
	}
}

// sigName is how a message names SIGINT or SIGTERM.
func sigName(s os.Signal) string {
	if s == os.Interrupt {
		return "SIGINT"
	}
	return "SIGTERM"
}

// sigNumber is SIGINT's or SIGTERM's number.
func sigNumber(s os.Signal) int {
	if s == os.Interrupt {
		return int(syscall.SIGINT)
	}
	return int(syscall.SIGTERM)
}
