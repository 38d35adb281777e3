package mcp

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// withResolved returns the paths with, after each one, where it really
// leads when that differs: the proxy runs beside a stdio server, on the same
// filesystem, so a path that goes through a symbolic link is checked both as
// given and as resolved, and refused if either lies outside the ticket.
//
// Relative paths are taken relative to dir (the server's working
// directory); a resolved relative path that stays inside dir is checked in
// its relative form, one that leaves it in its absolute form (which a
// relative prefix never admits). Resolution is best effort and adds
// subjects only: the path as given is always checked, so a path that
// cannot be resolved is not admitted by resolving it. A link created
// between the check and the server's use of the path is not seen (the
// proxy cannot close that race; the server's own checks remain).
func withResolved(paths []string, dir string) []string {
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
				realDir = resolve(dir)
			}
			abs = filepath.Join(realDir, p)
		}
		r := resolve(abs)
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
	return out
}

// resolve returns the absolute path abs leads to, following every symbolic
// link on the way (also a dangling one, whose target a write would create),
// as far as the filesystem shows; the part that does not exist is appended
// as it is. It returns "" when the links loop.
func resolve(abs string) string {
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
		if err != nil && !isASCII(c) {
			// The reference filesystem server looks up a missing name by
			// its Unicode NFC form among the directory's entries (and then
			// follows links from there), so the guard must too: otherwise a
			// link named "cafe\u0301" is reached as "caf\u00e9" unseen.
			if eq := nfcSibling(cur, c); eq != "" {
				next = filepath.Join(cur, eq)
				fi, err = os.Lstat(next)
			}
		}
		if err != nil {
			// Not there (or not visible): nothing further can be a link.
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return ""
		}
		target, err := os.Readlink(next)
		if err != nil {
			return ""
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return cur
}

// nfcSibling returns the name of an entry of dir whose Unicode NFC form is
// name's, or "".
func nfcSibling(dir, name string) string {
	want := norm.NFC.String(name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Name() != name && norm.NFC.String(e.Name()) == want {
			return e.Name()
		}
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
