package token

import (
	"fmt"
	"io"
)

// String describes the key without its key material, e.g.
// "token.SigningKey{id:root, mode:hmac, REDACTED}".
func (k SigningKey) String() string {
	return "token.SigningKey{id:" + k.id + ", mode:" + k.mode.String() + ", REDACTED}"
}

// GoString is String: %#v shows no key material either.
func (k SigningKey) GoString() string { return k.String() }

// Format writes String for every verb (%v, %+v, %#v, %s, %q, %x, %d, ...),
// so that no verb prints key material.
func (k SigningKey) Format(f fmt.State, verb rune) { io.WriteString(f, k.String()) }

// String describes the key without its key material, e.g.
// "token.VerifyingKey{id:root, mode:hmac, REDACTED}". An Ed25519
// verifying key holds no secret and says so ("public").
func (k VerifyingKey) String() string {
	what := "REDACTED"
	if k.mode == ModeEd25519 {
		what = "public"
	}
	return "token.VerifyingKey{id:" + k.id + ", mode:" + k.mode.String() + ", " + what + "}"
}

// GoString is String: %#v shows no key material either.
func (k VerifyingKey) GoString() string { return k.String() }

// Format writes String for every verb, so that no verb prints an HMAC
// verifying key's secret.
func (k VerifyingKey) Format(f fmt.State, verb rune) { io.WriteString(f, k.String()) }
