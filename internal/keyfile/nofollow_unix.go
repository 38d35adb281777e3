//go:build unix

package keyfile

import "syscall"

// oNoFollow refuses a symbolic link at the path opened.
const oNoFollow = syscall.O_NOFOLLOW
