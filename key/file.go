package key

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/tickettool/tickettool/internal/keyfile"
)

// WriteFile writes k's text form to a new file at path, mode 0600. The file
// is created exclusively with that mode from its first byte and synced; an
// existing file is never overwritten.
func (k *Signing) WriteFile(path string) error {
	text := k.SecretText()
	if text == "" {
		return errNoKey
	}
	return writeNew(path, []byte(text), 0o600)
}

// WriteFile writes k's text form to a new file at path, as
// [Signing.WriteFile] does: an Ed25519 public key string with mode 0644,
// or an HMAC secret string with mode 0600.
func (k *Verifying) WriteFile(path string) error {
	switch k.Alg() {
	case Ed25519:
		return writeNew(path, []byte(k.String()+"\n"), 0o644)
	case HMACSHA256:
		return (&Signing{alg: k.alg, id: k.id, hash: k.hash, sec: k.sec}).WriteFile(path)
	}
	return errNoKey
}

func writeNew(path string, data []byte, mode os.FileMode) error {
	if err := keyfile.WriteNew(path, data, mode); err != nil {
		return fmt.Errorf("key: %w", err) // keyfile's errors name the step and path
	}
	return nil
}

// ReadSigningFile reads a secret key file written by [Signing.WriteFile].
// The file must not be accessible by group or others ([ErrFileMode]); a
// public key file is [ErrPublic].
func ReadSigningFile(path string) (*Signing, error) {
	b, err := readKeyFile(path, func(b []byte) bool { return bytes.HasPrefix(b, []byte(privatePrefix)) })
	if err != nil {
		return nil, err
	}
	k, err := ParseSigning(string(b))
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return k, nil
}

// ReadVerifyingFile reads a key file that verifies (see [ParseVerifying]):
// an Ed25519 public key file, or a secret key file, whose mode is checked
// as [ReadSigningFile] does.
func ReadVerifyingFile(path string) (*Verifying, error) {
	b, err := readKeyFile(path, func(b []byte) bool { return bytes.HasPrefix(b, []byte(privatePrefix)) })
	if err != nil {
		return nil, err
	}
	k, err := ParseVerifying(string(b))
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return k, nil
}

// readKeyFile reads a regular file of at most MaxFileBytes and, when
// secret says it holds a secret, refuses it if group or others may access
// it.
func readKeyFile(path string, secret func([]byte) bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileErr(path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrMalformed, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fileErr(path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %s is longer than %d bytes", ErrMalformed, path, MaxFileBytes)
	}
	if secret(b) && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o (want 0600)", ErrFileMode, path, fi.Mode().Perm())
	}
	return b, nil
}

// fileErr is "key: read key file PATH: REASON", an *fs.PathError with
// the system's reason (not a second copy of the path).
func fileErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("key: %w", &fs.PathError{Op: "read key file", Path: path, Err: err})
}
