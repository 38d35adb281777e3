package mcp

import (
	"errors"
	"strings"

	"github.com/tickettool/tickettool/internal/pathcheck"
)

// ambiguousError is pathcheck's error for a path with a component that
// matches several entries of its directory by Unicode NFC form, under this
// package's prefix; it matches pathcheck.ErrAmbiguous.
type ambiguousError struct{ err *pathcheck.AmbiguousError }

func (e *ambiguousError) Error() string {
	return "mcp: " + strings.TrimPrefix(e.err.Error(), "pathcheck: ")
}

func (e *ambiguousError) Unwrap() error { return e.err }

// withResolved is [pathcheck.WithResolved]: each path, and after it where
// it really leads when that differs, relative paths taken against dir.
func withResolved(paths []string, dir string) ([]string, error) {
	out, err := pathcheck.WithResolved(paths, dir)
	var ae *pathcheck.AmbiguousError
	if errors.As(err, &ae) {
		return nil, &ambiguousError{ae}
	}
	return out, err
}
