//go:build unix

package sqlitestore

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW

// owner returns the user id owning the file fi describes.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// oNonBlock makes an open of a FIFO return at once.
const oNonBlock = syscall.O_NONBLOCK

// errLoop is the error of an O_NOFOLLOW open of a symbolic link.
var errLoop error = syscall.ELOOP
