package key

import (
	"fmt"
	"io"
)

// String describes the key without its key material, e.g.
// "key.Signing{id:root, alg:hmac, REDACTED}".
func (k Signing) String() string {
	return "key.Signing{id:" + k.id + ", alg:" + k.alg.String() + ", REDACTED}"
}

// GoString is String: %#v shows no key material either.
func (k Signing) GoString() string { return k.String() }

// Format writes String for every verb (%v, %+v, %#v, %s, %q, %x, %d, ...),
// so that no verb prints key material.
func (k Signing) Format(f fmt.State, verb rune) { io.WriteString(f, k.String()) }

// String returns an Ed25519 key's public key string (its text form, which
// [ParseVerifying] reads back), and for an HMAC key a description without
// the secret, e.g. "key.Verifying{id:root, alg:hmac, REDACTED}".
func (k Verifying) String() string {
	if k.alg == Ed25519 && len(k.pub) > 0 {
		return publicText(&k)
	}
	return "key.Verifying{id:" + k.id + ", alg:" + k.alg.String() + ", REDACTED}"
}

// GoString is String: %#v shows no secret either.
func (k Verifying) GoString() string { return k.String() }

// Format writes String for every verb, so that no verb prints an HMAC
// secret.
func (k Verifying) Format(f fmt.State, verb rune) { io.WriteString(f, k.String()) }

// String describes the holder key by its thumbprint, e.g.
// "key.Holder{alg:es256, jkt:K6J1kXKw…, REDACTED}" with the whole jkt.
func (h Holder) String() string {
	jkt := ""
	if h.pub != nil {
		jkt = h.pub.jkt
	}
	return "key.Holder{alg:" + h.alg.String() + ", jkt:" + jkt + ", REDACTED}"
}

// GoString is String: %#v shows no key material either.
func (h Holder) GoString() string { return h.String() }

// Format writes String for every verb, so that no verb prints the key.
func (h Holder) Format(f fmt.State, verb rune) { io.WriteString(f, h.String()) }
