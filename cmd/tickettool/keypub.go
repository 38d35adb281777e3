package main

import (
	"fmt"

	"github.com/tickettool/tickettool/key"
)

// printPublicKey prints the public half of the private key in path
// (keygen -y): a signed-note public key line for an Ed25519 root or
// receipt key, a public JWK for a holder key. A public key file prints
// itself, so that -y is safe to run on either file of a pair.
func printPublicKey(e *env, path string) error {
	b, err := readFile(path, "key file")
	if err != nil {
		return err
	}
	switch sniffKey(b) {
	case keyPrivateJWK, keyPublicJWK:
		return printHolderPublic(e, path)
	}
	k, err := readKey(path, "-y")
	if err != nil {
		return err
	}
	if k.Alg() == key.HMACSHA256 {
		return fail(exitRefused, fmt.Errorf("%s is an HMAC secret: it has no public half", path),
			"an HMAC ticket or receipt log is verified with the secret itself; use an ed25519 key (keygen --alg ed25519) to hand out a public key")
	}
	fmt.Fprintln(e.stdout, k.String()) // an Ed25519 public key string
	return nil
}

// printHolderPublic prints the public JWK of a holder key file.
func printHolderPublic(e *env, path string) error {
	b, err := readFile(path, "holder key")
	if err != nil {
		return err
	}
	if sniffKey(b) == keyPublicJWK {
		pub, err := key.ParseHolderPublic(b)
		if err != nil {
			return fail(exitUsage, fmt.Errorf("%s: %w", path, err))
		}
		fmt.Fprintln(e.stdout, string(pub.JWK()))
		return nil
	}
	k, err := readHolderKey(path, "-y")
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, string(k.Public().JWK()))
	return nil
}
