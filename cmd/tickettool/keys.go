package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/internal/keyfile"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

const keygenUsage = `
usage: tickettool keygen --alg hmac|ed25519 --out PATH [--kid ID]
       tickettool keygen -y PATH

Makes a root key for minting tickets (or a receipt key for signing receipt
logs) and writes it to PATH, created exclusively with mode 0600: an existing
file is never overwritten. For ed25519 the public key, which is all a
verifier needs, goes to PATH.pub (mode 0644). Prints the key id.

Keys are signed-note key strings (package key); the key id is the key's
name, which tickets and checkpoints cite: 1 to 64 bytes of printable ASCII
without spaces or '+'. The default --kid is PATH's base
name without its last extension, keeping only letters, digits, '.', '_' and
'-' (root.key -> root); when nothing is left, "key-" and 8 random hex digits.

Keys are never written to standard output: --out - is refused.

-y PATH prints the public key of the private key in PATH on standard
output, as age-keygen -y does: for an Ed25519 root or receipt key its
.pub line, for a holder's private JWK its public JWK. An HMAC key has no
public half: verifying needs the secret itself, so -y refuses it.

Example:
  tickettool keygen --alg ed25519 --out root.key --kid root-2026
  tickettool keygen -y root.key > root.key.pub
`

func runKeygen(e *env, args []string) error {
	fs := newFlags(e, "keygen", keygenUsage)
	alg := fs.String("alg", "", "`ALG`: hmac (HMAC-SHA256 secret) or ed25519 (key pair)")
	out := fs.String("out", "", "`PATH` of the new secret key file")
	kid := fs.String("kid", "", "key `ID` (default: derived from --out)")
	pubOf := fs.String("y", "", "print the public key of the private key file at `PATH`, and make nothing")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("keygen takes no arguments (got %d)", len(pos))
	}
	if *pubOf != "" {
		if *alg != "" || *out != "" || *kid != "" {
			return usageErr("keygen -y takes no --alg, --out or --kid: it only reads PATH")
		}
		return printPublicKey(e, *pubOf)
	}
	if err := checkOut(*out, "keygen"); err != nil {
		return err
	}
	var a key.Alg
	switch strings.ToLower(*alg) {
	case "hmac", "hmac-sha256":
		a = key.HMACSHA256
	case "ed25519":
		a = key.Ed25519
	case "":
		return fail(exitUsage, errors.New("keygen needs --alg"),
			"ed25519: verifiers hold only the public key (root.key.pub); hmac: one secret shared with every verifier",
			"e.g. tickettool keygen --alg ed25519 --out root.key")
	default:
		return usageErr("keygen --alg must be hmac or ed25519 (got %s)", quoteArg(*alg))
	}
	id := *kid
	if id == "" {
		id = defaultKeyID(*out)
	}
	k, err := key.Generate(a, id)
	if err != nil {
		return fail(exitUsage, err) // key's error never quotes the id: it may be anything pasted
	}
	pub := *out + ".pub"
	if a == key.Ed25519 {
		if _, err := os.Lstat(pub); err == nil {
			return fmt.Errorf("key file %s %w", pub, keyfile.ErrExists)
		}
	}
	if err := k.WriteFile(*out); err != nil {
		return err
	}
	if a == key.Ed25519 {
		if err := k.Verifying().WriteFile(pub); err != nil {
			os.Remove(*out) // we created it above; leave no half pair
			return err
		}
	}
	fmt.Fprintln(e.stdout, id)
	return nil
}

// checkOut refuses a missing --out, and "-": a key is never written to
// standard output, where it would end up in a terminal's scrollback, a
// pipe or a CI log.
func checkOut(out, cmd string) error {
	switch out {
	case "":
		return usageErr("%s needs --out PATH", cmd)
	case "-":
		return fail(exitUsage, errors.New("--out - would write the key to standard output"),
			"keys are only written to new files (mode 0600): give a file path; 'tickettool keygen -y PATH' prints a key's public half")
	}
	return nil
}

// defaultKeyID derives a key id from a file name (see keygenUsage).
func defaultKeyID(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return -1
	}, base)
	id = strings.Trim(id, ".")
	if len(id) > key.MaxIDBytes {
		id = id[:key.MaxIDBytes]
	}
	if id == "" {
		var b [4]byte
		rand.Read(b[:])
		id = "key-" + hex.EncodeToString(b[:])
	}
	return id
}

// readKey reads a key file that verifies (key.ReadVerifyingFile): a
// public key file, or a secret one. A holder JWK (or any other file that
// is not a key string) is named for what it is, never quoted.
func readKey(path, flagName string) (*key.Verifying, error) {
	if path == "" {
		return nil, usageErr("%s PATH is required", flagName)
	}
	k, err := key.ReadVerifyingFile(path)
	return k, explainKeyErr(path, flagName, err)
}

// readSigningKey reads a secret key file (key.ReadSigningFile), as readKey
// does.
func readSigningKey(path, flagName, what string) (*key.Signing, error) {
	if path == "" {
		return nil, usageErr("%s PATH is required", flagName)
	}
	k, err := key.ReadSigningFile(path)
	if errors.Is(err, key.ErrPublic) {
		return nil, fail(exitUsage, fmt.Errorf("%s holds a public key: %s needs the secret key file", path, what),
			"pass the file keygen wrote to --out, not the .pub file")
	}
	return k, explainKeyErr(path, flagName, err)
}

// explainKeyErr names a file of the wrong kind (a holder JWK where a
// keygen key is wanted) instead of the parser's error.
func explainKeyErr(path, flagName string, err error) error {
	if errors.Is(err, key.ErrMalformed) {
		if b, rerr := readFile(path, "key file"); rerr == nil {
			if werr := wrongKeyFile(path, flagName, sniffKey(b)); werr != nil {
				return werr
			}
		}
	}
	return err
}

// mintingKey reads a ticket root key that can mint.
func mintingKey(path string) (*key.Signing, error) {
	return readSigningKey(path, "--key", "minting")
}

// keysOf returns the verifying key in the file at path (a public or
// secret key file) and a keyring holding it alone.
func keysOf(path string) (*key.Verifying, *token.Keyring, error) {
	vk, err := readKey(path, "--key")
	if err != nil {
		return nil, nil, err
	}
	keys, err := token.NewKeyring(vk)
	if err != nil {
		return nil, nil, err
	}
	return vk, keys, nil
}
