//go:build !unix

package sqlitestore

import (
	"errors"
	"io/fs"
)

// oNoFollow is zero where open has no such flag.
const oNoFollow = 0

// owner reports no owner where files have no user id: only the mode bits
// are checked there.
func owner(fs.FileInfo) (int, bool) { return 0, false }

// oNonBlock is zero where open has no such flag.
const oNonBlock = 0

// errLoop is never returned where open has no O_NOFOLLOW.
var errLoop = errors.New("sqlitestore: no such error")
