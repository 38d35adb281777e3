package caveat

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/internal/echo"
)

var (
	// ErrSyntax matches (errors.Is) every error for malformed input: a bad
	// KEY=VALUE, a bad CBOR value, or a constructor argument that breaks a
	// rule of its kind.
	ErrSyntax = errors.New("caveat: malformed")

	// ErrRefused matches every refusal by Check: the request does not
	// satisfy the caveat.
	ErrRefused = errors.New("caveat: refused")

	// ErrWiden matches every refusal by [Scope]: the caveat is not at least as
	// strict as the effective constraint of its kind, or no block may be
	// appended.
	ErrWiden = errors.New("caveat: not narrower")
)

// Error is an error of this package: the kind it concerns, why, and which
// of [ErrSyntax], [ErrRefused] or [ErrWiden] it is.
type Error struct {
	Kind   Kind   // the kind concerned; 0 when none is known (e.g. an unknown key)
	Reason string // a message a person can act on; never more than needed
	Err    error  // ErrSyntax, ErrRefused or ErrWiden
}

// Error returns "caveat: KIND: REASON", or "caveat: REASON" when [Kind] is
// not a known kind (the reason then names the kind itself when there is
// one).
func (e *Error) Error() string {
	if e.Kind.Known() {
		return "caveat: " + e.Kind.String() + ": " + e.Reason
	}
	return "caveat: " + e.Reason
}

// Unwrap returns the sentinel, so errors.Is(err, [ErrRefused]) works.
func (e *Error) Unwrap() error { return e.Err }

func syntaxErr(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Reason: fmt.Sprintf(format, args...), Err: ErrSyntax}
}

func refuse(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Reason: fmt.Sprintf(format, args...), Err: ErrRefused}
}

func widen(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Reason: fmt.Sprintf(format, args...), Err: ErrWiden}
}

// show renders a value for a message: as is when it is non-empty printable
// ASCII without quotes or backslashes, otherwise Go-quoted, so control
// characters and bidi tricks never reach a terminal raw. Values longer than
// maxShowBytes are cut (at a rune boundary) and marked with "...". A value
// that looks like key material (internal/echo) is never shown, not even
// in part: a key pasted into a caveat by mistake must not end up in a
// terminal's scrollback or a CI log.
func show(s string) string {
	if echo.LooksLikeKey(s) {
		return echo.Hidden
	}
	s, cut := echo.Cut(s, maxShowBytes)
	if s != "" && plain(s) {
		return s + cut
	}
	return strconv.Quote(s) + cut
}

func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b <= ' ' || b >= 0x7f || b == '"' || b == '\\' {
			return false
		}
	}
	return true
}

// listText renders a list caveat for a message, e.g.
// "tools=read_file,write_file", printing at most maxShown entries.
func listText(k Kind, list []string) string {
	var b strings.Builder
	b.WriteString(k.String())
	b.WriteByte('=')
	for i, e := range list {
		if i == maxShown {
			fmt.Fprintf(&b, ",... (%d more)", len(list)-maxShown)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(show(e))
	}
	return b.String()
}
