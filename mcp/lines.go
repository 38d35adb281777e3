package mcp

import (
	"bufio"
	"encoding/json"
	"io"
)

// lineReader splits a stream into newline-delimited messages without ever
// holding more than max bytes of one.
type lineReader struct {
	r    *bufio.Reader
	max  int
	buf  []byte
	scan topScan // the top level of the current line, once it is too long
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its '\n' (a '\r' before it is kept,
// so forwarding the line and a '\n' reproduces its bytes). For a line
// longer than max bytes with its newline, it returns tooLong and only the
// line's first sniffBytes bytes; the rest is read and discarded, and
// l.scan holds the line's top-level id and method. A last line without a
// newline is returned before io.EOF. The line is valid until the next call.
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
			l.scan.feed(chunk[:n])
		case len(l.buf)+n+1 > l.max:
			tooLong = true
			l.scan = topScan{}
			l.scan.feed(l.buf)
			l.scan.feed(chunk[:n])
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

// topScan follows the top level of a JSON object as its bytes stream past,
// without keeping them, to learn the id and the method of a message too
// long to keep: a client may put its id after a huge params (the
// TypeScript SDK does), and that request must still be answered. It
// tolerates anything: on bytes that are not JSON it learns what it can,
// and the caller answers only a visible request.
type topScan struct {
	depth    int
	inStr    bool
	esc      bool
	afterKey bool   // at depth 1, between a member's name and its value
	key      []byte // the top-level name being read, quotes included
	member   string // the top-level member whose value is being read
	val      []byte // its value so far, when it is id or method
	over     bool   // val passed maxIDBytes

	id        json.RawMessage // the last usable id seen
	hasMethod bool            // a string method was seen
}

func (s *topScan) feed(b []byte) {
	for _, c := range b {
		s.step(c)
	}
}

func (s *topScan) step(c byte) {
	top := s.depth == 1
	if s.inStr {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
		}
		s.collect(c, top)
		return
	}
	switch c {
	case '"':
		s.inStr = true
		if top && !s.afterKey && s.member == "" {
			s.key = s.key[:0]
		}
		s.collect(c, top)
	case '{', '[':
		s.depth++
		s.collect(c, top)
	case '}', ']':
		s.depth--
		if s.depth == 0 {
			s.endValue()
		} else {
			s.collect(c, top)
		}
	case ':':
		if top && !s.afterKey && s.member == "" {
			var name string
			_ = json.Unmarshal(s.key, &name)
			s.member, s.afterKey, s.val, s.over = name, true, s.val[:0], false
			if s.member == "" {
				s.member = "\x00" // a member whose value is not watched
			}
			return
		}
		s.collect(c, top)
	case ',':
		if top {
			s.endValue()
			return
		}
		s.collect(c, top)
	default:
		s.collect(c, top)
	}
}

// collect keeps c as part of a top-level name or of a watched value.
func (s *topScan) collect(c byte, top bool) {
	switch {
	case s.depth < 1:
	case top && !s.afterKey && s.member == "":
		if len(s.key) < maxIDBytes {
			s.key = append(s.key, c)
		}
	case s.member == "id" || s.member == "method":
		if len(s.val) >= maxIDBytes {
			s.over = true
			return
		}
		s.val = append(s.val, c)
	}
}

// endValue closes the top-level member being read.
func (s *topScan) endValue() {
	if s.afterKey && !s.over {
		switch s.member {
		case "id":
			if _, ok := keyOf(s.val); ok {
				s.id = append(json.RawMessage(nil), s.val...)
			}
		case "method":
			var m string
			s.hasMethod = json.Unmarshal(s.val, &m) == nil
		}
	}
	s.member, s.afterKey, s.key = "", false, s.key[:0]
}
