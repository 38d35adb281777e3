package sqlitestore

import (
	"io/fs"
	"os"
	"sync"
)

// shmFile is a shared-memory index this process holds open for as long
// as a [Store] of it is open, so that its inode cannot be reused and the
// file at its name can be told from a replacement. One descriptor per
// file serves every store of the process: SQLite keeps POSIX locks on the
// index, and closing any descriptor of that file in the process drops
// them (another process would then take itself for the index's only user
// and truncate it under this one's mapping); so it is closed only when
// the last store using it has closed.
type shmFile struct {
	fi fs.FileInfo
	f  *os.File
	n  int // stores using it
}

var shmFiles struct {
	sync.Mutex
	held []*shmFile
}

// holdShm claims the shared-memory index at path (see claimSibling)
// unless this process holds that file already, and counts one more user.
func holdShm(path string) (*shmFile, error) {
	shmFiles.Lock()
	defer shmFiles.Unlock()
	if fi, err := os.Lstat(path); err == nil {
		for _, h := range shmFiles.held {
			if os.SameFile(h.fi, fi) {
				if err := checkOwned(path, fi); err != nil {
					return nil, err
				}
				h.n++
				return h, nil
			}
		}
	}
	c, err := claimSibling(path, true)
	if err != nil {
		return nil, err
	}
	h := &shmFile{fi: c.fi, f: c.f, n: 1}
	shmFiles.held = append(shmFiles.held, h)
	return h, nil
}

// release counts one user less, and closes the file after the last.
// Call it after the store's connections are closed.
func (h *shmFile) release() {
	if h == nil {
		return
	}
	shmFiles.Lock()
	defer shmFiles.Unlock()
	if h.n--; h.n > 0 {
		return
	}
	h.f.Close()
	for i, x := range shmFiles.held {
		if x == h {
			shmFiles.held = append(shmFiles.held[:i], shmFiles.held[i+1:]...)
			break
		}
	}
}
