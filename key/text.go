package key

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// privatePrefix starts the text form of every secret key.
const privatePrefix = "PRIVATE+KEY+"

// SecretText returns k's text form, a secret: the PRIVATE+KEY string
// (see the package doc) followed by a newline. It is for callers who store
// keys elsewhere than in files ([Signing.WriteFile] writes files); never
// print or log it. It is "" for a nil or zero key.
func (k *Signing) SecretText() string {
	if k == nil || k.sec == nil {
		return ""
	}
	var raw []byte
	switch k.alg {
	case HMACSHA256:
		raw = append([]byte(hmacType), (*k.sec).hmac...)
	case Ed25519:
		raw = append([]byte{1}, (*k.sec).ed.Seed()...)
	default:
		return ""
	}
	return fmt.Sprintf("%s%s+%08x+%s\n", privatePrefix, k.id, k.hash, base64.StdEncoding.EncodeToString(raw))
}

// publicText is an Ed25519 verifying key's public key string, without a
// newline.
func publicText(k *Verifying) string {
	return fmt.Sprintf("%s+%08x+%s", k.id, k.hash, base64.StdEncoding.EncodeToString(append([]byte{1}, k.pub...)))
}

// parsed is a key string's parts.
type parsed struct {
	private bool
	signing *Signing   // private strings
	public  *Verifying // Ed25519 public strings
}

// ParseSigning parses a secret key string (an HMAC secret or an Ed25519
// private key), with or without one final newline. A public key string is
// [ErrPublic]. It refuses anything else: other whitespace, non-canonical
// base64, a key hash that does not match. Errors never quote the text.
func ParseSigning(text string) (*Signing, error) {
	p, err := parse(text)
	if err != nil {
		return nil, err
	}
	if !p.private {
		return nil, fmt.Errorf("%w: the key string is an ed25519 public key", ErrPublic)
	}
	return p.signing, nil
}

// ParseVerifying parses a key string that verifies: an Ed25519 public key
// string, or an HMAC secret string (HMAC verifies with the secret). An
// Ed25519 private key string gives its public half. It refuses what
// [ParseSigning] refuses.
func ParseVerifying(text string) (*Verifying, error) {
	p, err := parse(text)
	if err != nil {
		return nil, err
	}
	if p.private {
		return p.signing.Verifying(), nil
	}
	return p.public, nil
}

func parse(text string) (parsed, error) {
	bad := func(why string) (parsed, error) { return parsed{}, fmt.Errorf("%w: %s", ErrMalformed, why) }
	if len(text) > MaxFileBytes {
		return bad("too long")
	}
	text = strings.TrimSuffix(text, "\n")
	rest, private := strings.CutPrefix(text, privatePrefix)
	id, rest, ok1 := strings.Cut(rest, "+")
	hash16, b64, ok2 := strings.Cut(rest, "+")
	if !ok1 || !ok2 || checkID(id) != nil {
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
	p := parsed{private: private}
	var h uint32
	switch {
	case raw[0] == 1 && len(raw) == 1+ed25519.SeedSize && private:
		p.signing, err = NewEd25519(id, ed25519.NewKeyFromSeed(raw[1:]))
		if err == nil {
			h = p.signing.hash
		}
	case raw[0] == 1 && len(raw) == 1+ed25519.PublicKeySize:
		p.public, err = NewEd25519Public(id, raw[1:])
		if err == nil {
			h = p.public.hash
		}
	case private && len(raw) == len(hmacType)+HMACBytes && string(raw[:len(hmacType)]) == hmacType:
		p.signing, err = NewHMAC(id, raw[len(hmacType):])
		if err == nil {
			h = p.signing.hash
		}
	default:
		return bad("unknown key type or length")
	}
	if err != nil {
		return parsed{}, err
	}
	if h != uint32(hash) {
		return bad("key hash does not match the key")
	}
	return p, nil
}
