//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package chain

import (
	"os"
	"syscall"
)

// lockFile takes an advisory lock on f (flock(2)): exclusive for writers,
// shared for readers. It blocks until the lock is granted. The lock
// belongs to the open file description, so it excludes other processes
// and other Logs of this process, and is released by unlockFile or when f
// is closed (also when the process dies).
func lockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
