package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/keyfile"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// classify maps an error to its exit status and hints.
func classify(err error) (int, []string) {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code, ce.hints
	}
	var pe *fs.PathError
	switch {
	case errors.Is(err, key.ErrFileMode):
		return exitUsage, []string{"a secret key file must be readable by its owner only: chmod 600 it"}
	case errors.Is(err, token.ErrMalformed):
		return exitUsage, []string{"a ticket's text starts with " + token.Prefix + "; pass it whole, or - to read it from standard input"}
	case errors.Is(err, keyfile.ErrExists):
		return exitRefused, []string{"tickettool never overwrites a key file: choose another --out, or remove the old file yourself"}
	case errors.Is(err, caveat.ErrSyntax),
		errors.Is(err, key.ErrMalformed),
		errors.Is(err, key.ErrPublic),
		errors.Is(err, chain.ErrMalformed),
		errors.Is(err, dpop.ErrExpectations),
		errors.As(err, &pe):
		return exitUsage, nil
	}
	return exitRefused, nil
}

// readStdin reads all of standard input (at most once per run), bounded
// by maxInputBytes.
func (e *env) readStdin(what string) (string, error) {
	if e.stdinUsed {
		return "", usageErr("only one argument can be read from standard input (-), and %s was the second", what)
	}
	e.stdinUsed = true
	b, err := io.ReadAll(io.LimitReader(e.stdin, maxInputBytes+1))
	if err != nil {
		return "", usageErr("read %s from standard input: %v", what, err)
	}
	if len(b) > maxInputBytes {
		return "", usageErr("%s on standard input is longer than %d bytes", what, maxInputBytes)
	}
	return string(b), nil
}

// inputSpace is the whitespace trimmed around text read from standard
// input or a file: what editors, echo and heredocs add.
const inputSpace = " \t\r\n"

// textArg returns the text an argument stands for: standard input for
// "-", the content of PATH for "@PATH", both with surrounding whitespace
// trimmed, and any other argument exactly as given.
func (e *env) textArg(arg, what string) (string, error) {
	switch {
	case arg == "-":
		s, err := e.readStdin(what)
		return strings.Trim(s, inputSpace), err
	case strings.HasPrefix(arg, "@"):
		if arg == "@" {
			return "", usageErr("@ needs a file name: @PATH reads %s from PATH", what)
		}
		b, err := readFile(arg[1:], what)
		if err != nil {
			return "", err
		}
		return strings.Trim(string(b), inputSpace), nil
	}
	return arg, nil
}

// ticketArg reads and parses a TICKET argument (its text, - for standard
// input, or @PATH for a file). It returns the text as parsed.
func (e *env) ticketArg(arg string) (string, *token.Ticket, error) {
	text, err := e.textArg(arg, "the ticket")
	if err != nil {
		return "", nil, err
	}
	t, err := token.Parse(text)
	if err != nil {
		if h := fileHint(arg); h != "" {
			return "", nil, fail(exitUsage, err, h)
		}
		return "", nil, err
	}
	return text, t, nil
}

// fileHint returns a hint for an argument that is not a ticket but names
// an existing file, as "ticket.txt" for "@ticket.txt" would.
func fileHint(arg string) string {
	if arg == "-" || strings.HasPrefix(arg, "@") || strings.HasPrefix(arg, token.Prefix) || len(arg) > maxPathBytes {
		return ""
	}
	if fi, err := os.Stat(arg); err != nil || fi.IsDir() {
		return ""
	}
	return fmt.Sprintf("%s names a file, and TICKET is the ticket's text: write @%s to read the ticket from that file", arg, arg)
}

// readFile reads a small file, bounded by maxInputBytes.
func readFile(path, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr("read %s %s: %v", what, path, osReason(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxInputBytes+1))
	if err != nil {
		return nil, usageErr("read %s %s: %v", what, path, osReason(err))
	}
	if len(b) > maxInputBytes {
		return nil, usageErr("%s %s is longer than %d bytes", what, path, maxInputBytes)
	}
	return b, nil
}

// parseTime parses TIME: unix seconds (digits only) or RFC 3339.
func parseTime(flagName, s string) (time.Time, error) {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n > 253402300799 {
			return time.Time{}, usageErr("%s %q: unix seconds out of range", flagName, s)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usageErr("%s %s is neither RFC 3339 (2026-01-02T15:04:05Z) nor unix seconds", flagName, quoteArg(s))
	}
	return t, nil
}

// nowFlag returns the time given with --now, or the process's start time.
func (e *env) nowFlag(s string) (time.Time, error) {
	if s == "" {
		return e.now, nil
	}
	return parseTime("--now", s)
}

// parseRevoked reads a revocation list: one block id per line, "#"
// comments and blank lines allowed.
func parseRevoked(path string) (map[token.BlockID]struct{}, error) {
	b, err := readFile(path, "revocation list")
	if err != nil {
		return nil, err
	}
	set := make(map[token.BlockID]struct{})
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, maxInputBytes)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		id, err := token.ParseBlockID(line)
		if err != nil {
			return nil, usageErr("%s line %d: not a block id (64 lowercase hex digits)", path, n)
		}
		set[id] = struct{}{}
	}
	return set, nil
}

// oneArg checks that exactly one positional argument was given.
func oneArg(cmd string, pos []string, what string) (string, error) {
	if len(pos) != 1 {
		return "", fail(exitUsage, fmt.Errorf("%s takes exactly one %s (got %d arguments)", cmd, what, len(pos)),
			"run 'tickettool "+cmd+" -h' for usage")
	}
	return pos[0], nil
}
