package key

import "errors"

var (
	// ErrMalformed is returned (wrapped) for a key, key string or key file
	// that is not one this package writes, or key material of the wrong
	// size. The error never quotes the input.
	ErrMalformed = errors.New("key: malformed key")

	// ErrFileMode is returned (wrapped, naming the path) for a key file
	// holding a secret that group or others may access.
	ErrFileMode = errors.New("key: secret key file is accessible by group or others")

	// ErrPublic is returned (wrapped) where a secret is needed and the key
	// or file holds a public key only.
	ErrPublic = errors.New("key: public key where a secret key is needed")
)
