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
	"github.com/tickettool/tickettool/token"
)

// maxInputBytes bounds anything read from standard input or a small file
// (tickets, proofs, JWKs, checkpoints, revocation lists).
const maxInputBytes = 1 << 20

// classify maps an error to its exit status and hints.
func classify(err error) (int, []string) {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code, ce.hints
	}
	var pe *fs.PathError
	switch {
	case errors.Is(err, chain.ErrKeyFileMode):
		return exitUsage, []string{"a secret key file must be readable by its owner only: chmod 600 it"}
	case errors.Is(err, token.ErrMalformed):
		return exitUsage, []string{"a ticket's text starts with " + token.Prefix + "; pass it whole, or - to read it from standard input"}
	case errors.Is(err, keyfile.ErrExists):
		return exitRefused, []string{"tickettool never overwrites a key file: choose another --out, or remove the old file yourself"}
	case errors.Is(err, caveat.ErrSyntax),
		errors.Is(err, chain.ErrMalformedKey),
		errors.Is(err, chain.ErrMalformed),
		errors.Is(err, dpop.ErrExpectations),
		errors.As(err, &pe):
		return exitUsage, nil
	}
	return exitRefused, nil
}

// readStdin reads all of standard input (at most once per run).
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
	return strings.TrimSuffix(string(b), "\n"), nil
}

// textArg returns arg, or standard input (without one trailing newline)
// when arg is "-".
func (e *env) textArg(arg, what string) (string, error) {
	if arg == "-" {
		return e.readStdin(what)
	}
	return arg, nil
}

// ticketArg reads and parses a TICKET argument (its text, or - for
// standard input). It returns the text exactly as given.
func (e *env) ticketArg(arg string) (string, *token.Ticket, error) {
	text, err := e.textArg(arg, "the ticket")
	if err != nil {
		return "", nil, err
	}
	t, err := token.Parse(text)
	if err != nil {
		return "", nil, err
	}
	return text, t, nil
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
		return time.Time{}, usageErr("%s %q is neither RFC 3339 (2026-01-02T15:04:05Z) nor unix seconds", flagName, s)
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
