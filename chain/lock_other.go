//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package chain

import (
	"errors"
	"os"
)

var errNoLock = errors.New("chain: advisory file locking (flock) is not available on this platform")

// lockFile refuses: without flock, appends from several processes could
// fork the chain.
func lockFile(f *os.File, exclusive bool) error { return errNoLock }

func unlockFile(f *os.File) error { return errNoLock }
