package mcp

import (
	"bufio"
	"io"
)

// lineReader splits a stream into newline-delimited messages without ever
// holding more than max bytes of one.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its '\n' (a '\r' before it is kept,
// so forwarding the line and a '\n' reproduces its bytes). For a line longer
// than max bytes it returns tooLong and only the line's first sniffBytes
// bytes; the rest is read and discarded. A last line without a newline is
// returned before io.EOF. The line is valid until the next call.
func (l *lineReader) next() (line []byte, tooLong bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		n := len(chunk)
		if n > 0 && chunk[n-1] == '\n' {
			n--
		}
		switch {
		case tooLong:
		case len(l.buf)+n > l.max:
			tooLong = true
			keep := min(n, max(0, sniffBytes-len(l.buf)))
			l.buf = append(l.buf, chunk[:keep]...)
			if len(l.buf) > sniffBytes {
				l.buf = l.buf[:sniffBytes]
			}
		default:
			l.buf = append(l.buf, chunk[:n]...)
		}
		switch {
		case err == nil:
			return l.buf, tooLong, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(l.buf) > 0 || tooLong):
			return l.buf, tooLong, nil
		default:
			return nil, false, err
		}
	}
}
