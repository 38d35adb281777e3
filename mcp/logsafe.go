package mcp

import (
	"io"
	"sync"

	"github.com/tickettool/tickettool/internal/escape"
)

// The guard logs strings the agent and the server choose (tool names,
// paths, reasons, the server's own stderr). Written raw, a newline in one
// forges a log line and an ESC drives the operator's terminal. So every
// line the proxy logs, and every line of the server's stderr, is written
// with each such byte or character escaped, Go-style: \n, \x1b, \u2028,
// \xff for a byte that is not UTF-8. Strings the proxy names in its own
// messages are quoted as well (%q), so where one ends is never in doubt.

// escapeControls appends s to dst with every control character, line or
// paragraph separator, format character and byte that is not UTF-8
// escaped: internal/escape's Controls, the one implementation of this
// rule.
func escapeControls(dst, s []byte) []byte { return escape.Controls(dst, s) }

// logWriter is the writer under the proxy's log.Logger: each Write is one
// message ending in a newline, written with everything before that newline
// escaped.
type logWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logWriter) Write(p []byte) (int, error) {
	msg := p
	if n := len(msg); n > 0 && msg[n-1] == '\n' {
		msg = msg[:n-1]
	}
	out := append(escapeControls(make([]byte, 0, len(msg)+16), msg), '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lineEscaper passes a stream (the server's stderr) on line by line with
// each line escaped. A line longer than maxLogLine is passed on in pieces.
// Close writes what is left of an unfinished last line.
type lineEscaper struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (e *lineEscaper) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i, room := 0, maxLogLine-len(e.buf)
		for i < len(p) && i < room && p[i] != '\n' {
			i++
		}
		e.buf = append(e.buf, p[:i]...)
		newline := i < len(p) && p[i] == '\n'
		if !newline && len(e.buf) < maxLogLine {
			break
		}
		if err := e.flushLocked(); err != nil {
			return 0, err
		}
		if newline {
			i++
		}
		p = p[i:]
	}
	return n, nil
}

func (e *lineEscaper) flushLocked() error {
	// A line cut at maxLogLine may end inside a character: its bytes are
	// escaped as not UTF-8, which loses nothing.
	out := append(escapeControls(make([]byte, 0, len(e.buf)+16), e.buf), '\n')
	e.buf = e.buf[:0]
	_, err := e.w.Write(out)
	return err
}

// Close writes an unfinished last line, if any.
func (e *lineEscaper) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.buf) == 0 {
		return nil
	}
	return e.flushLocked()
}
