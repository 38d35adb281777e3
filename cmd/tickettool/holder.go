package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tickettool/tickettool/internal/keyfile"
	"github.com/tickettool/tickettool/key"
)

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
		return usageErr("holder takes no arguments (got %d)", len(pos))
	}
	if err := checkOut(*out, "holder"); err != nil {
		return err
	}
	var a key.Alg
	switch strings.ToLower(*alg) {
	case "es256":
		a = key.ES256
	case "eddsa", "ed25519":
		a = key.Ed25519
	default:
		return usageErr("holder --alg must be es256 or eddsa (got %s)", quoteArg(*alg))
	}
	pubPath := *out + ".pub"
	if _, err := os.Lstat(pubPath); err == nil {
		return fmt.Errorf("key file %s %w", pubPath, keyfile.ErrExists)
	}
	h, err := key.GenerateHolder(a)
	if err != nil {
		return err
	}
	if err := h.WriteFile(*out); err != nil {
		return err // it names the path
	}
	if err := keyfile.WriteNew(pubPath, append(h.Public().JWK(), '\n'), 0o644); err != nil {
		os.Remove(*out) // we created it above; leave no half pair
		return err
	}
	jkt := h.Thumbprint()
	fmt.Fprintln(e.stdout, jkt)
	return nil
}

// readHolderKey reads a private holder JWK, refusing a file that group or
// others may access (as key.ReadHolderFile does). A public JWK or a keygen
// key file is named for what it is; the mode of a file that holds no
// secret is never questioned.
func readHolderKey(path, flagName string) (*key.Holder, error) {
	if path == "" {
		return nil, usageErr("%s PATH is required", flagName)
	}
	b, err := readFile(path, "holder key")
	if err != nil {
		return nil, err
	}
	kind := sniffKey(b)
	switch kind {
	case keyPublicJWK:
		return nil, fail(exitUsage, fmt.Errorf("%s is a public key: %s takes the holder's private JWK", path, flagName),
			"pass the file 'tickettool holder' wrote to --out (agent.jwk), not its .pub")
	case keySecretString, keyPublicString:
		return nil, wrongKeyFile(path, flagName, kind)
	}
	hint := "holder keys are the private JWK files 'tickettool holder' writes"
	if !kind.isSecret() { // no private key in it: say so, whatever its mode
		_, err := key.ParseHolder(b)
		return nil, fail(exitUsage, fmt.Errorf("%s: %w", path, err), hint)
	}
	k, err := key.ReadHolderFile(path) // refuses a mode that lets group or others read it
	switch {
	case errors.Is(err, key.ErrFileMode):
		return nil, fail(exitUsage, err, "a private key file must be readable by its owner only: chmod 600 it")
	case err != nil:
		return nil, fail(exitUsage, err, hint)
	}
	return k, nil
}

// readHolderPub reads a public holder JWK and returns its thumbprint.
func readHolderPub(path string) (string, error) {
	b, err := readFile(path, "holder public key")
	if err != nil {
		return "", err
	}
	switch kind := sniffKey(b); kind {
	case keyPrivateJWK:
		return "", fail(exitUsage, fmt.Errorf("%s is a private key: --bind takes the holder's public JWK", path),
			"pass the .pub file 'tickettool holder' wrote beside it (agent.jwk.pub)")
	case keySecretString, keyPublicString:
		return "", wrongKeyFile(path, "--bind", kind)
	}
	pub, err := key.ParseHolderPublic(b)
	if err != nil {
		return "", fail(exitUsage, fmt.Errorf("%s: %w", path, err), "pass the public JWK (the .pub file 'tickettool holder' writes)")
	}
	return pub.Thumbprint(), nil
}
