//go:build !unix

package mcp

import (
	"fmt"
	"os"
)

// openDischarge opens a file of the discharge directory for reading. Off
// Unix there are no FIFOs to block on; a symbolic link is refused by an
// Lstat first (racy, where the Unix build is not).
func openDischarge(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	return os.Open(path)
}
