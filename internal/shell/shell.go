// Package shell quotes words for the POSIX shell command lines tickettool
// prints for a person to run (the approve command of a refused call's
// hint, in the CLI and in the MCP guard's tool result). Some of those
// words come from an agent (a call's arguments, a tool name), so quoting
// is all that stands between them and the person's shell.
package shell

import (
	"regexp"
	"strings"
)

// safe matches a word a POSIX shell takes as it is.
var safe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// Quote quotes s for a POSIX shell: as it is when that is safe, else in
// single quotes, each single quote inside closed, escaped with a
// backslash and reopened. A word starting with '=' is quoted too: zsh
// expands =word to a command's path.
func Quote(s string) string {
	if safe.MatchString(s) && !strings.HasPrefix(s, "=") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
