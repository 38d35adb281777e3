package chain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/tickettool/tickettool/internal/keyfile"
)

// Key text form. Keys are written as signed-note key strings
// (c2sp.org/signed-note, golang.org/x/mod/sumdb/note), one line:
//
//	Ed25519 private: PRIVATE+KEY+<name>+<hash>+base64(0x01 || 32-byte seed)
//	Ed25519 public:  <name>+<hash>+base64(0x01 || 32-byte public key)
//	HMAC secret:     PRIVATE+KEY+<name>+<hash>+base64(0xff || "tickettool/v1 hmac-sha256" || 32-byte secret)
//
// where <hash> is the key hash in eight lowercase hex digits. The Ed25519
// forms are exactly note.GenerateKey's, so note.NewSigner and
// note.NewVerifier accept them and any signed-note tool can check an
// Ed25519 checkpoint. An HMAC key has no public form.
const privatePrefix = "PRIVATE+KEY+"

// FormatKey returns k's text form (see ParseKey) followed by a newline.
// For a signing key it is secret: write it only with WriteKeyFile.
func FormatKey(k *Key) (string, error) {
	if err := checkKey(k, false); err != nil {
		return "", err
	}
	var raw []byte
	prefix := ""
	switch {
	case k.alg == AlgHMACSHA256:
		prefix, raw = privatePrefix, append([]byte(hmacType), k.secretKey()...)
	case k.privKey() != nil:
		prefix, raw = privatePrefix, append([]byte{1}, k.privKey().Seed()...)
	default:
		raw = append([]byte{1}, k.pub...)
	}
	return fmt.Sprintf("%s%s+%08x+%s\n", prefix, k.name, k.hash, base64.StdEncoding.EncodeToString(raw)), nil
}

// ParseKey parses a key's text form, with or without one final newline.
// It refuses anything else (other whitespace, non-canonical base64, a key
// hash that does not match), and its errors never contain key material.
func ParseKey(text string) (*Key, error) {
	bad := func(why string) (*Key, error) { return nil, fmt.Errorf("%w: %s", ErrMalformedKey, why) }
	if len(text) > MaxKeyFileBytes {
		return bad("too long")
	}
	text = strings.TrimSuffix(text, "\n")
	rest, private := strings.CutPrefix(text, privatePrefix)
	name, rest, ok1 := strings.Cut(rest, "+")
	hash16, b64, ok2 := strings.Cut(rest, "+")
	if !ok1 || !ok2 || !validName(name) {
		return bad("not a key string")
	}
	hash, err := strconv.ParseUint(hash16, 16, 32)
	if err != nil || fmt.Sprintf("%08x", hash) != hash16 {
		return bad("key hash is not eight lowercase hex digits")
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || base64.StdEncoding.EncodeToString(raw) != b64 || len(raw) == 0 {
		return bad("key is not canonical base64")
	}
	var k *Key
	switch {
	case raw[0] == 1 && len(raw) == 33 && private:
		k, err = NewEd25519Key(name, ed25519.NewKeyFromSeed(raw[1:]))
	case raw[0] == 1 && len(raw) == 33:
		k, err = NewEd25519PublicKey(name, raw[1:])
	case private && len(raw) == len(hmacType)+HMACKeySize && string(raw[:len(hmacType)]) == hmacType:
		k, err = NewHMACKey(name, raw[len(hmacType):])
	default:
		return bad("unknown key type or length")
	}
	if err != nil {
		return nil, err
	}
	if k.hash != uint32(hash) {
		return bad("key hash does not match the key")
	}
	return k, nil
}

// WriteKeyFile writes k's text form to a new file at path: mode 0600 for
// a signing key (Ed25519 private or HMAC), 0644 for an Ed25519 public key.
// The file is created exclusively with that mode from its first byte and
// synced (internal/keyfile); an existing file is never overwritten.
func WriteKeyFile(path string, k *Key) error {
	text, err := FormatKey(k)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if k.CanSign() {
		mode = 0o600
	}
	if err := keyfile.WriteNew(path, []byte(text), mode); err != nil {
		return fmt.Errorf("chain: %w", err) // keyfile's errors name the step and path
	}
	return nil
}

// ReadKeyFile reads a key written by WriteKeyFile. A signing key's file
// must not be accessible by group or others (ErrKeyFileMode).
func ReadKeyFile(path string) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr("read key file", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileErr("read key file", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrMalformedKey, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxKeyFileBytes+1))
	if err != nil {
		return nil, fileErr("read key file", path, err)
	}
	if len(b) > MaxKeyFileBytes {
		return nil, fmt.Errorf("%w: %s is longer than %d bytes", ErrMalformedKey, path, MaxKeyFileBytes)
	}
	isPrivate := bytes.HasPrefix(b, []byte(privatePrefix))
	if isPrivate && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o (want 0600)", ErrKeyFileMode, path, fi.Mode().Perm())
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return k, nil
}

// NoteSigner returns a signed-note signer for checkpoints: note's own
// Ed25519 signer (note.NewSigner), or for an HMAC key a signer of type
// 0xff "tickettool/v1 hmac-sha256" whose signature is
// HMAC-SHA256(secret, "tickettool/v1 checkpoint" || 0x00 || note text).
func (k *Key) NoteSigner() (note.Signer, error) {
	if err := checkKey(k, true); err != nil {
		return nil, err
	}
	if k.alg == AlgHMACSHA256 {
		return hmacNote{k}, nil
	}
	text, _ := FormatKey(k)
	s, err := note.NewSigner(strings.TrimSuffix(text, "\n"))
	if err != nil {
		return nil, errors.New("chain: note signer refused the key")
	}
	return s, nil
}

// NoteVerifier returns a signed-note verifier for checkpoints signed by k
// (or by the private half of k). An HMAC verifier needs the secret.
func (k *Key) NoteVerifier() (note.Verifier, error) {
	if err := checkKey(k, false); err != nil {
		return nil, err
	}
	if k.alg == AlgHMACSHA256 {
		return hmacNote{k}, nil
	}
	text, _ := FormatKey(k.VerifierKey())
	v, err := note.NewVerifier(strings.TrimSuffix(text, "\n"))
	if err != nil {
		return nil, errors.New("chain: note verifier refused the key")
	}
	return v, nil
}

// hmacNote is note.Signer and note.Verifier for an HMAC key.
type hmacNote struct{ k *Key }

func (h hmacNote) Name() string    { return h.k.name }
func (h hmacNote) KeyHash() uint32 { return h.k.hash }

func (h hmacNote) Sign(msg []byte) ([]byte, error) {
	return h.k.sign(append([]byte(checkpointDomain), msg...))
}

func (h hmacNote) Verify(msg, sig []byte) bool {
	return len(sig) == sha256.Size && h.k.verify(append([]byte(checkpointDomain), msg...), sig)
}
