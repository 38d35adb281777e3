//go:build !unix

package keyfile

// oNoFollow is 0 where the system has no O_NOFOLLOW: O_EXCL alone
// refuses a symbolic link at the path created.
const oNoFollow = 0
