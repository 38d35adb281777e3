package report

import (
	"bufio"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

//go:embed page.html
var pageText string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"show": Show,
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000Z")
	},
	"px":    func(f float64) string { return fmt.Sprintf("%.1f", 3*f) },
	"short": func(s string) string { return s[:min(len(s), 16)] },
	"dict":  func(k string, v []top) map[string][]top { return map[string][]top{k: v} },
}).Parse(pageText))

// WriteHTML writes the page: one self-contained HTML document.
func (r *Report) WriteHTML(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if err := page.Execute(bw, r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return bw.Flush()
}

// Show renders a string a record holds for the page: every rune that is
// not graphic (control characters) or that formats bidirectional text
// (U+200E, U+202A..U+202E, U+2066..U+2069 and other format characters) is
// written as a \uXXXX escape, invalid UTF-8 as \xNN, and the result is cut
// to MaxShownBytes with the number of bytes left out. html/template then
// escapes it for its context.
func Show(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if b.Len() >= MaxShownBytes {
			fmt.Fprintf(&b, "… (%d more bytes)", len(s)-i)
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case !unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}
