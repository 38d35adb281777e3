package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// This file reads the examples of a Markdown file for TestREADME (see
// readme_test.go for the convention) and matches their output.

// example is one fenced block of a Markdown file.
type example struct {
	file    string // as named in messages: README.md, mcp/README.md
	line    int    // of the opening fence
	section string // the heading above it
	lang    string // console, sh, json, go, "" ...
	body    []string
	skip    string   // the reason of a skip marker, or ""
	needs   string   // "fs-server" when the block needs the reference filesystem server
	vary    []string // literal texts of the output that stand for any text
}

// name is how logs and failures name the block.
func (x *example) name() string {
	return fmt.Sprintf("%s:%d (%s)", x.file, x.line, x.section)
}

// consoleCommand is one "$ " line of a console block (with its continuation
// lines) and the output shown under it.
type consoleCommand struct {
	line int // in the Markdown file
	text string
	want []string
}

var (
	fenceRE  = regexp.MustCompile("^```([A-Za-z0-9_-]*)\\s*$")
	markerRE = regexp.MustCompile(`^<!--\s*readme-test:\s*(.*?)\s*-->$`)
)

// readExamples returns the fenced blocks of the Markdown file at path, in
// order, each with the marker on the last non-blank line before it.
func readExamples(path, name string) ([]*example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out     []*example
		cur     *example
		section = "top"
		marker  string
		n       int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, cur)
			cur = nil
		case cur != nil:
			cur.body = append(cur.body, line)
		case fenceRE.MatchString(line):
			cur = &example{file: name, line: n, section: section, lang: fenceRE.FindStringSubmatch(line)[1]}
			if err := cur.setMarker(marker); err != nil {
				return nil, fmt.Errorf("%s: %v", cur.name(), err)
			}
		case strings.HasPrefix(line, "#"):
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
		if t := strings.TrimSpace(line); t != "" {
			marker = t
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s: the block is not closed", cur.name())
	}
	return out, sc.Err()
}

// setMarker reads the directives of a marker line (directives are
// separated by ";"): skip (REASON), needs fs-server, vary TEXT....
func (x *example) setMarker(line string) error {
	m := markerRE.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	for _, d := range splitDirectives(m[1]) {
		verb, arg, _ := strings.Cut(d, " ")
		switch {
		case verb == "skip" && strings.HasPrefix(arg, "(") && strings.HasSuffix(arg, ")") && len(arg) > 2:
			x.skip = arg[1 : len(arg)-1]
		case verb == "needs" && arg == "fs-server":
			x.needs = arg
		case verb == "vary" && arg != "":
			x.vary = append(x.vary, strings.Fields(arg)...)
		default:
			return fmt.Errorf("readme-test marker %q: want skip (REASON), needs fs-server or vary TEXT...", d)
		}
	}
	return nil
}

// splitDirectives splits a marker's text at each ";" outside parentheses
// (a skip reason may hold one).
func splitDirectives(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case r == ';' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// commands splits a console block into its commands.
func (x *example) commands() ([]consoleCommand, error) {
	var cmds []consoleCommand
	cont := false
	for i, line := range x.body {
		switch {
		case cont:
			c := &cmds[len(cmds)-1]
			c.text += "\n" + line
			cont = strings.HasSuffix(line, "\\")
		case strings.HasPrefix(line, "$ "):
			cmds = append(cmds, consoleCommand{line: x.line + 1 + i, text: line[2:]})
			cont = strings.HasSuffix(line, "\\")
		case len(cmds) == 0:
			return nil, fmt.Errorf("%s: output %q before any \"$ \" command", x.name(), line)
		default:
			c := &cmds[len(cmds)-1]
			c.want = append(c.want, line)
		}
	}
	return cmds, nil
}

// wantsFailure reports whether the output shown says the command failed:
// an error line or a hook's refusal line, or a refused or invalid verdict
// first.
func wantsFailure(want []string) bool {
	if len(want) > 0 && (want[0] == "refused" || want[0] == "invalid") {
		return true
	}
	for _, l := range want {
		if strings.HasPrefix(l, "tickettool: error: ") || strings.HasPrefix(l, "tickettool: refused ") {
			return true
		}
	}
	return false
}

var (
	// wordRE finds words; a word of 8 or more lowercase hex digits, at
	// least one a digit (hexRE), stands for a random id or key hash.
	wordRE = regexp.MustCompile(`[0-9A-Za-z_]+`)
	hexRE  = regexp.MustCompile(`^[0-9a-f]{8,}$`)
	// timeRE finds an RFC 3339 UTC time.
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z`)
)

// linePattern turns one line of shown output into a regular expression
// for the whole line: "…" is any text, each vary text any text without
// spaces, a hex word (see wordRE) any hex word of its length, an RFC
// 3339 time any such time; everything else is literal.
func linePattern(line string, vary []string) *regexp.Regexp {
	var spans []span
	taken := make([]bool, len(line))
	add := func(lo, hi int, re string) {
		for i := lo; i < hi; i++ {
			if taken[i] {
				return
			}
		}
		for i := lo; i < hi; i++ {
			taken[i] = true
		}
		spans = append(spans, span{lo, hi, re})
	}
	for i := 0; ; {
		j := strings.Index(line[i:], "…")
		if j < 0 {
			break
		}
		add(i+j, i+j+len("…"), `.*`)
		i += j + len("…")
	}
	for _, v := range vary {
		for i := 0; ; {
			j := strings.Index(line[i:], v)
			if j < 0 {
				break
			}
			add(i+j, i+j+len(v), `\S+?`)
			i += j + len(v)
		}
	}
	for _, m := range timeRE.FindAllStringIndex(line, -1) {
		add(m[0], m[1], timeRE.String())
	}
	for _, m := range wordRE.FindAllStringIndex(line, -1) {
		if w := line[m[0]:m[1]]; hexRE.MatchString(w) && strings.ContainsAny(w, "0123456789") {
			add(m[0], m[1], fmt.Sprintf(`[0-9a-f]{%d}`, len(w)))
		}
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(line); {
		s := spanAt(spans, i)
		if s == nil {
			j := i + 1
			for j < len(line) && !taken[j] {
				j++
			}
			b.WriteString(regexp.QuoteMeta(line[i:j]))
			i = j
			continue
		}
		b.WriteString(s.re)
		i = s.hi
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// span is a part of a shown line that stands for a pattern.
type span struct {
	lo, hi int
	re     string
}

// spanAt returns the span starting at i, or nil.
func spanAt(spans []span, i int) *span {
	for k := range spans {
		if spans[k].lo == i {
			return &spans[k]
		}
	}
	return nil
}
