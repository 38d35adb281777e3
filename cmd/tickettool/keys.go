package main

import (
	"crypto"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/keyfile"
	"github.com/tickettool/tickettool/token"
)

const keygenUsage = `
usage: tickettool keygen --alg hmac|ed25519 --out PATH [--kid ID]

Makes a root key for minting tickets (or a receipt key for signing receipt
logs) and writes it to PATH, created exclusively with mode 0600: an existing
file is never overwritten. For ed25519 the public key, which is all a
verifier needs, goes to PATH.pub (mode 0644). Prints the key id.

Keys are signed-note key strings (package chain); the key id is the key's
name, which tickets and checkpoints cite. The default --kid is PATH's base
name without its last extension, keeping only letters, digits, '.', '_' and
'-' (root.key -> root); when nothing is left, "key-" and 8 random hex digits.

Example:
  tickettool keygen --alg ed25519 --out root.key --kid root-2026
`

func runKeygen(e *env, args []string) error {
	fs := newFlags(e, "keygen", keygenUsage)
	alg := fs.String("alg", "", "`ALG`: hmac (HMAC-SHA256 secret) or ed25519 (key pair)")
	out := fs.String("out", "", "`PATH` of the new secret key file")
	kid := fs.String("kid", "", "key `ID` (default: derived from --out)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("keygen takes no arguments (got %q)", pos[0])
	}
	if *out == "" {
		return usageErr("keygen needs --out PATH")
	}
	var a chain.Alg
	switch strings.ToLower(*alg) {
	case "hmac", "hmac-sha256":
		a = chain.AlgHMACSHA256
	case "ed25519":
		a = chain.AlgEd25519
	default:
		return usageErr("keygen --alg must be hmac or ed25519 (got %q)", *alg)
	}
	id := *kid
	if id == "" {
		id = defaultKeyID(*out)
	}
	if err := checkKeyID(id); err != nil {
		return err
	}
	k, err := chain.GenerateKey(a, id, rand.Reader)
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
			return usageErr("key id %q: use printable ASCII without spaces or '+'", id)
		}
	}
	return nil
}

// readKey reads a key file in the chain key format.
func readKey(path, flagName string) (*chain.Key, error) {
	if path == "" {
		return nil, usageErr("%s PATH is required", flagName)
	}
	k, err := chain.ReadKeyFile(path)
	if err != nil {
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

// keyringOf returns a keyring holding the one verifying key in the file at
// path (see verifyingKey).
func keyringOf(path string) (*token.Keyring, error) {
	vk, err := verifyingKey(path)
	if err != nil {
		return nil, err
	}
	return token.NewKeyring(vk)
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

const holderUsage = `
usage: tickettool holder --alg es256|eddsa --out PATH

Makes a holder key for DPoP binding (RFC 9449): writes the private JWK to
PATH (mode 0600, never overwriting) and the public JWK to PATH.pub (0644).
Prints the key's RFC 7638 thumbprint (jkt), which a holder caveat names.

Example:
  tickettool holder --alg eddsa --out agent.jwk
  tickettool mint --key root.key --bind agent.jwk.pub tools=read_file
`

func runHolder(e *env, args []string) error {
	fs := newFlags(e, "holder", holderUsage)
	alg := fs.String("alg", "", "`ALG`: es256 (ECDSA P-256) or eddsa (Ed25519)")
	out := fs.String("out", "", "`PATH` of the new private JWK file")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("holder takes no arguments (got %q)", pos[0])
	}
	if *out == "" {
		return usageErr("holder needs --out PATH")
	}
	var a string
	switch strings.ToLower(*alg) {
	case "es256":
		a = "ES256"
	case "eddsa", "ed25519":
		a = "EdDSA"
	default:
		return usageErr("holder --alg must be es256 or eddsa (got %q)", *alg)
	}
	pubPath := *out + ".pub"
	if _, err := os.Lstat(pubPath); err == nil {
		return fmt.Errorf("key file %s %w", pubPath, keyfile.ErrExists)
	}
	key, err := dpop.NewKey(a, nil)
	if err != nil {
		return err
	}
	priv, err := dpop.MarshalPrivateJWK(key)
	if err != nil {
		return err
	}
	pub, err := dpop.MarshalPublicJWK(key.Public())
	if err != nil {
		return err
	}
	jkt, err := dpop.ThumbprintOf(key.Public())
	if err != nil {
		return err
	}
	if err := keyfile.WriteNew(*out, append(priv, '\n'), 0o600); err != nil {
		return err // it names the path
	}
	if err := keyfile.WriteNew(pubPath, append(pub, '\n'), 0o644); err != nil {
		os.Remove(*out) // we created it above; leave no half pair
		return err
	}
	fmt.Fprintln(e.stdout, jkt)
	return nil
}

// readHolderKey reads a private holder JWK, refusing a file that group or
// others may access (as chain.ReadKeyFile does for its keys).
func readHolderKey(path, flagName string) (crypto.Signer, error) {
	if path == "" {
		return nil, usageErr("%s PATH is required", flagName)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, usageErr("read holder key %s: %v", path, osReason(err))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fail(exitUsage, fmt.Errorf("%w: %s has mode %04o (want 0600)", chain.ErrKeyFileMode, path, fi.Mode().Perm()),
			"a private key file must be readable by its owner only: chmod 600 it")
	}
	b, err := readFile(path, "holder key")
	if err != nil {
		return nil, err
	}
	k, err := dpop.ParsePrivateJWK(b)
	if err != nil {
		return nil, fail(exitUsage, fmt.Errorf("%s: %w", path, err), "holder keys are the private JWK files 'tickettool holder' writes")
	}
	return k, nil
}

// readHolderPub reads a public holder JWK and returns its thumbprint.
func readHolderPub(path string) (string, error) {
	b, err := readFile(path, "holder public key")
	if err != nil {
		return "", err
	}
	jwk, err := dpop.ParsePublicJWK(b)
	if err != nil {
		return "", fail(exitUsage, fmt.Errorf("%s: %w", path, err), "pass the public JWK (the .pub file 'tickettool holder' writes)")
	}
	jkt, err := dpop.Thumbprint(jwk)
	if err != nil {
		return "", fail(exitUsage, fmt.Errorf("%s: %w", path, err))
	}
	return jkt, nil
}

// holderSigner adapts a holder's private key to token.HolderSigner, for
// signing a rebinding block.
func holderSigner(k crypto.Signer) (token.HolderSigner, error) {
	s, err := dpop.NewHolderSigner(k)
	if err != nil {
		return nil, fail(exitUsage, err)
	}
	return s, nil
}
