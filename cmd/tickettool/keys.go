package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/keyfile"
	"github.com/tickettool/tickettool/token"
)

const keygenUsage = `
usage: tickettool keygen --alg hmac|ed25519 --out PATH [--kid ID]
       tickettool keygen -y PATH

Makes a root key for minting tickets (or a receipt key for signing receipt
logs) and writes it to PATH, created exclusively with mode 0600: an existing
file is never overwritten. For ed25519 the public key, which is all a
verifier needs, goes to PATH.pub (mode 0644). Prints the key id.

Keys are signed-note key strings (package chain); the key id is the key's
name, which tickets and checkpoints cite. The default --kid is PATH's base
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
	var a chain.Alg
	switch strings.ToLower(*alg) {
	case "hmac", "hmac-sha256":
		a = chain.AlgHMACSHA256
	case "ed25519":
		a = chain.AlgEd25519
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
	if err := checkKeyID(id); err != nil {
		return err
	}
	k, err := chain.GenerateKey(a, id)
	if err != nil {
		return err
	}
	pub := *out + ".pub"
	if a == chain.AlgEd25519 {
		if _, err := os.Lstat(pub); err == nil {
			return fmt.Errorf("key file %s %w", pub, keyfile.ErrExists)
		}
	}
	if err := chain.WriteKeyFile(*out, k); err != nil {
		return err
	}
	if a == chain.AlgEd25519 {
		if err := chain.WriteKeyFile(pub, k.VerifierKey()); err != nil {
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
	if len(id) > token.MaxKeyIDBytes {
		id = id[:token.MaxKeyIDBytes]
	}
	if id == "" {
		var b [4]byte
		rand.Read(b[:])
		id = "key-" + hex.EncodeToString(b[:])
	}
	return id
}

// checkKeyID accepts ids that both tickets (printable ASCII, no space, at
// most token.MaxKeyIDBytes) and signed-note key names (no '+') accept.
func checkKeyID(id string) error {
	if id == "" || len(id) > token.MaxKeyIDBytes {
		return usageErr("key id must be 1 to %d bytes", token.MaxKeyIDBytes)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' || c == '+' {
			// The id is not quoted: it may be anything pasted, even a key.
			return usageErr("key id: use printable ASCII without spaces or '+' (byte %d is not)", i)
		}
	}
	return nil
}

// readKey reads a key file in the chain key format. A holder JWK (or any
// other file that is not a key string) is named for what it is, never
// quoted.
func readKey(path, flagName string) (*chain.Key, error) {
	if path == "" {
		return nil, usageErr("%s PATH is required", flagName)
	}
	k, err := chain.ReadKeyFile(path)
	if err != nil {
		if errors.Is(err, chain.ErrMalformedKey) {
			if b, rerr := readFile(path, "key file"); rerr == nil {
				if werr := wrongKeyFile(path, flagName, sniffKey(b)); werr != nil {
					return nil, werr
				}
			}
		}
		return nil, err
	}
	return k, nil
}

// mintingKey turns a key file into a ticket root key that can mint.
func mintingKey(path string) (*token.SigningKey, error) {
	k, err := readKey(path, "--key")
	if err != nil {
		return nil, err
	}
	if !k.CanSign() {
		return nil, fail(exitUsage, fmt.Errorf("%s holds a public key: minting needs the secret key file", path),
			"pass the file keygen wrote to --out, not the .pub file")
	}
	switch k.Alg() {
	case chain.AlgHMACSHA256:
		return token.NewHMACKey(k.Name(), k.HMACSecret())
	case chain.AlgEd25519:
		return token.NewEd25519Key(k.Name(), k.Ed25519PrivateKey())
	}
	return nil, usageErr("%s: unsupported key algorithm %v", path, k.Alg())
}

// keysOf returns the verifying key in the file at path (see
// verifyingKey) and a keyring holding it alone.
func keysOf(path string) (*token.VerifyingKey, *token.Keyring, error) {
	vk, err := verifyingKey(path)
	if err != nil {
		return nil, nil, err
	}
	keys, err := token.NewKeyring(vk)
	if err != nil {
		return nil, nil, err
	}
	return vk, keys, nil
}

// verifyingKey turns a key file into a ticket verifying key: the HMAC
// secret, or the Ed25519 public key (from a public or private key file).
func verifyingKey(path string) (*token.VerifyingKey, error) {
	k, err := readKey(path, "--key")
	if err != nil {
		return nil, err
	}
	switch k.Alg() {
	case chain.AlgHMACSHA256:
		sk, err := token.NewHMACKey(k.Name(), k.HMACSecret())
		if err != nil {
			return nil, err
		}
		return sk.Verifying(), nil
	case chain.AlgEd25519:
		return token.NewEd25519PublicKey(k.Name(), k.PublicKey())
	}
	return nil, usageErr("%s: unsupported key algorithm %v", path, k.Alg())
}
