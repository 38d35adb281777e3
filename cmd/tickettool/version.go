package main

import (
	"fmt"
	"runtime/debug"

	"github.com/tickettool/tickettool/token"
)

const versionUsage = `
usage: tickettool version

Prints the module version of this tickettool (or "(devel)" for a build
from a source tree), the version-control revision it was built from,
followed by "dirty" when the tree had uncommitted changes, and the version
of the ticket format it reads and writes. 'tickettool --version' is the
same.

Example:
  tickettool version
`

func runVersion(e *env, args []string) error {
	fs := newFlags(e, "version", versionUsage)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("version takes no arguments (got %q)", pos[0])
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, versionLine(bi))
	return nil
}

// versionLine describes a build in one line, e.g.
//
//	tickettool v1.2.0 revision 0123…cdef ticket format 1
//	tickettool (devel) revision 0123…cdef dirty ticket format 1
//
// bi may be nil (a binary built without module support).
func versionLine(bi *debug.BuildInfo) string {
	version, revision, dirty := "(devel)", "unknown", false
	if bi != nil {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := fmt.Sprintf("tickettool %s revision %s", version, revision)
	if dirty {
		line += " dirty"
	}
	return fmt.Sprintf("%s ticket format %d", line, token.FormatVersion)
}
