package main

import (
	"errors"
	"fmt"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
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
	if k.Alg() == chain.AlgHMACSHA256 {
		return fail(exitRefused, fmt.Errorf("%s is an HMAC secret: it has no public half", path),
			"an HMAC ticket or receipt log is verified with the secret itself; use an ed25519 key (keygen --alg ed25519) to hand out a public key")
	}
	text, err := chain.FormatKey(k.VerifierKey())
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, text)
	return nil
}

// printHolderPublic prints the public JWK of a holder key file.
func printHolderPublic(e *env, path string) error {
	b, err := readFile(path, "holder key")
	if err != nil {
		return err
	}
	if sniffKey(b) == keyPublicJWK {
		jwk, err := dpop.ParsePublicJWK(b)
		if err != nil {
			return fail(exitUsage, fmt.Errorf("%s: %w", path, err))
		}
		pub, err := dpop.MarshalPublicJWK(jwk.Key)
		if err != nil {
			return fail(exitUsage, fmt.Errorf("%s: %w", path, err))
		}
		fmt.Fprintln(e.stdout, string(pub))
		return nil
	}
	k, err := readHolderKey(path, "-y")
	if err != nil {
		return err
	}
	pub, err := dpop.MarshalPublicJWK(k.Public())
	if err != nil {
		return errors.New("holder key has no public JWK form")
	}
	fmt.Fprintln(e.stdout, string(pub))
	return nil
}
