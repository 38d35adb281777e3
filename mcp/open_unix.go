//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// openDischarge opens a file of the discharge directory for reading. It
// never follows a symbolic link (O_NOFOLLOW) and never waits for a writer
// (O_NONBLOCK: a FIFO swapped in after the directory was listed opens at
// once, and its Stat then shows it is not a regular file). Reads of a
// regular file are unaffected by O_NONBLOCK.
func openDischarge(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
