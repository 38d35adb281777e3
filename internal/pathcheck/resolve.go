// Package pathcheck resolves the paths of a tool call as the filesystem
// will: through every symbolic link, and for a name that does not exist
// byte for byte, through its one Unicode NFC equivalent (as the reference
// MCP filesystem server and macOS look names up). An enforcement point
// checks a path both as given and as resolved, so that neither a link nor
// a look-alike name leads outside what a ticket allows.
package pathcheck

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ErrAmbiguous is returned when a path component that does not exist byte
// for byte matches more than one entry of its directory by Unicode NFC
// form: the reference filesystem server refuses such a path, and the guard
// cannot tell which entry a server would pick.
var ErrAmbiguous = errors.New("pathcheck: ambiguous path component")

// AmbiguousError names the component that matched several entries.
type AmbiguousError struct{ Path, Name string }

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("pathcheck: path %q: component %q matches more than one entry by its Unicode NFC form", e.Path, e.Name)
}

// Unwrap returns [ErrAmbiguous].
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// WithResolved returns the paths with, after each one, where it really
// leads when that differs: the caller runs on the same filesystem as the
// tool, so a path that goes through a symbolic link is checked both as given
// and as resolved, and refused if either lies outside the ticket.
//
// Relative paths are taken relative to dir (the working directory of the
// process that will use them); a resolved relative path that stays inside dir is checked in
// its relative form, one that leaves it in its absolute form (which a
// relative prefix never admits). Resolution adds subjects only: the path as
// given is always checked, so a path that cannot be resolved (links that
// loop) is not admitted by resolving it. A path with a component that
// matches several entries by NFC form is an *AmbiguousError.
//
// A link created between the check and the use of the path is not seen:
// a caller that lets the agent run calls concurrently must order them (the
// MCP guard runs a call that may change the filesystem alone).
func WithResolved(paths []string, dir string) ([]string, error) {
	out := make([]string, 0, 2*len(paths))
	seen := make(map[string]bool, 2*len(paths))
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	realDir := ""
	for _, p := range paths {
		add(p)
		if p == "" || strings.IndexByte(p, 0) >= 0 {
			continue
		}
		abs := p
		if !filepath.IsAbs(p) {
			if dir == "" {
				continue
			}
			if realDir == "" {
				if realDir, _ = Resolve(dir); realDir == "" {
					continue
				}
			}
			abs = filepath.Join(realDir, p)
		}
		r, err := Resolve(abs)
		if err != nil {
			var ae *AmbiguousError
			if errors.As(err, &ae) {
				ae.Path = p
			}
			return nil, err
		}
		if r == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			if rel, err := filepath.Rel(realDir, r); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				r = rel
			}
		}
		if r != filepath.Clean(p) {
			add(r)
		}
	}
	return out, nil
}

// Resolve returns the absolute path abs leads to, following every symbolic
// link on the way (also a dangling one, whose target a write would create),
// as far as the filesystem shows; the part that does not exist is appended
// as it is. It returns "" when the links loop.
//
// A component that does not exist byte for byte is looked up as the
// reference filesystem server (2026.8.31, lib.js resolveUnicodeEquivalentPath)
// looks it up: among the entries of its directory, by comparing Unicode NFC
// forms, for every component, ASCII or not (U+212A KELVIN SIGN is NFC "K",
// U+037E is ";", U+1FEF is "`"). One match is followed like the name
// itself; several are an *AmbiguousError (the server refuses them too).
func Resolve(abs string) (string, error) {
	rest := strings.Split(filepath.Clean(abs), string(filepath.Separator))
	cur := string(filepath.Separator)
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			eq, lerr := nfcSibling(cur, c)
			if lerr != nil {
				return "", lerr
			}
			if eq != "" {
				next = filepath.Join(cur, eq)
				fi, err = os.Lstat(next)
			}
		}
		if err != nil {
			// Not there (or not visible): nothing further can be a link.
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > MaxLinkHops {
			return "", nil
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", nil
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return cur, nil
}

// nfcSibling returns the one entry of dir whose Unicode NFC form is name's,
// "" when there is none (or dir cannot be read), and an *AmbiguousError when
// there are several. Names that are not valid UTF-8 are skipped: the server
// reads directory entries as UTF-8 text, so such a name comes back to it
// with U+FFFD in place of the bad bytes and no longer names the entry.
func nfcSibling(dir, name string) (string, error) {
	want := norm.NFC.String(name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil
	}
	found := ""
	for _, e := range entries {
		n := e.Name()
		if n == name || !utf8.ValidString(n) || norm.NFC.String(n) != want {
			continue
		}
		if found != "" {
			return "", &AmbiguousError{Name: name}
		}
		found = n
	}
	return found, nil
}
