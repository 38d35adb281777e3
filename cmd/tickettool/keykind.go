package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tickettool/tickettool/internal/echo"
	"github.com/tickettool/tickettool/key"
)

// keyKind is what a key file (or argument) holds, as far as tickettool
// can tell without printing any of it. It lets an error say "this is a
// holder key" instead of "malformed", and lets a permission hint name
// only files that hold a secret.
type keyKind int

const (
	keyUnknown      keyKind = iota
	keySecretString         // a signed-note PRIVATE+KEY string: root or receipt secret (keygen --out)
	keyPublicString         // a signed-note public key string (keygen's PATH.pub)
	keyPrivateJWK           // a JWK with private members (holder --out)
	keyPublicJWK            // a public EC P-256 or OKP Ed25519 JWK (holder's PATH.pub)
	keyOtherJSON            // some other JSON object
)

// privateJWKMembers are the JWK members that hold private or symmetric
// key material (RFC 7518 §6.2.2, §6.3.2, §6.4.1, RFC 8037 §2).
var privateJWKMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// sniffKey classifies b. It never returns or prints any part of b.
func sniffKey(b []byte) keyKind {
	t := bytes.TrimSpace(b)
	switch {
	case bytes.HasPrefix(t, []byte("PRIVATE+KEY+")):
		return keySecretString
	case len(t) > 0 && t[0] == '{':
		var members map[string]json.RawMessage
		if json.Unmarshal(t, &members) != nil {
			return keyOtherJSON
		}
		for _, m := range privateJWKMembers {
			if _, ok := members[m]; ok {
				return keyPrivateJWK
			}
		}
		if _, err := key.ParseHolderPublic(t); err == nil {
			return keyPublicJWK
		}
		return keyOtherJSON
	}
	if _, err := key.ParseVerifying(string(t)); err == nil {
		return keyPublicString // a secret string starts with PRIVATE+KEY+, sniffed above
	}
	return keyUnknown
}

// isSecret reports whether a file of kind k holds key material that only
// its owner may read.
func (k keyKind) isSecret() bool { return k == keySecretString || k == keyPrivateJWK }

// wrongKeyFile explains a key file of the wrong kind for flagName: a
// holder JWK where a keygen key is wanted, or the reverse. It returns nil
// when kind gives nothing better to say than the parser's own error.
// Nothing of the file is quoted.
func wrongKeyFile(path, flagName string, kind keyKind) error {
	switch kind {
	case keyPrivateJWK, keyPublicJWK:
		return fail(exitUsage, fmt.Errorf("%s is a holder key (a JWK for DPoP binding), not a root or receipt key", path),
			flagName+" takes a key file 'tickettool keygen' wrote (e.g. root.key; its .pub verifies Ed25519 tickets and logs); holder JWKs go to --bind, --holder-key and proof make --key")
	case keySecretString, keyPublicString:
		return fail(exitUsage, fmt.Errorf("%s is a root or receipt key from keygen, not a holder key", path),
			flagName+" takes a holder key from 'tickettool holder' (the private JWK for --holder-key and proofs, its .pub for --bind)")
	}
	return nil
}

// quoteArg quotes a command-line value for a message, unless it looks like
// a key (a JSON object such as a JWK, or a PRIVATE+KEY string): a key
// pasted into the wrong flag must not reach a terminal or a CI log.
func quoteArg(s string) string {
	if sniffKey([]byte(s)) != keyUnknown {
		return echo.Hidden
	}
	return echo.Quote(s, maxEchoBytes)
}

// holderArgs resolves holder= caveats whose value is a key rather than a
// thumbprint: a public JWK becomes holder=JKT; a private key is refused
// without quoting any of it, so that "holder=$(cat agent.jwk)" never
// prints the private key to a terminal or a CI log.
func holderArgs(args []string) ([]string, error) {
	out := append([]string(nil), args...)
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "holder=")
		if !ok {
			continue
		}
		switch sniffKey([]byte(v)) {
		case keyPublicJWK:
			pub, err := key.ParseHolderPublic([]byte(strings.TrimSpace(v)))
			if err != nil {
				return nil, fail(exitUsage, errors.New("holder= names a public JWK whose thumbprint cannot be computed"))
			}
			out[i] = "holder=" + pub.Thumbprint()
		case keyPrivateJWK:
			return nil, fail(exitUsage, errors.New("holder= takes the public key; this is a private key (not shown)"),
				"use the public JWK 'tickettool holder' wrote beside it: --bind agent.jwk.pub (or holder=JKT, the thumbprint holder printed)")
		case keySecretString, keyPublicString:
			return nil, fail(exitUsage, errors.New("holder= takes a holder key's thumbprint; this is a root or receipt key from keygen (not shown)"),
				"use --bind HOLDER.pub with the public JWK 'tickettool holder' wrote, or holder=JKT")
		case keyOtherJSON:
			return nil, fail(exitUsage, errors.New("holder= value is JSON but not a public JWK (EC P-256 or OKP Ed25519); not shown"),
				"use --bind HOLDER.pub with the public JWK 'tickettool holder' wrote, or holder=JKT")
		}
	}
	return out, nil
}

// flagErr is the flag package's parse error, unless it quotes a value that
// looks like a key ("flag provided but not defined: -{...}", "invalid
// boolean value "PRIVATE+KEY..."), which it then replaces.
func flagErr(err error) error {
	if quoteArg(err.Error()) != fmt.Sprintf("%q", err.Error()) {
		return errors.New("a flag or its value is malformed (not shown: it looks like a key)")
	}
	return err
}
