// Package secrettest finds key material in text, for tests that promise
// a secret is never printed: not by any fmt verb, not in an error.
package secrettest

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Window is how many consecutive bytes of a secret count as a leak.
const Window = 8

// Forms returns the ways a secret may be written, each a string in which
// any Window-sized run of the secret's bytes shows as a substring of at
// least minLen characters: raw, hex (either case), base64 standard and
// URL (padded or not), and the decimal list fmt prints for a []byte.
func Forms(secret []byte) []string {
	var out []string
	for i := 0; i+Window <= len(secret); i++ {
		w := secret[i : i+Window]
		dec := fmt.Sprint(w)
		out = append(out,
			string(w),
			hex.EncodeToString(w),
			strings.ToUpper(hex.EncodeToString(w)),
			dec[1:len(dec)-1], // "1 2 3 ..." without the brackets
			strings.ReplaceAll(fmt.Sprintf("%#v", w)[len("[]byte{"):], "}", ""), // "0x1, 0x2, ..."
		)
	}
	// base64 is aligned to 3 bytes: take every 3-aligned run of 9 bytes
	// (12 characters) from the secret shifted by 0, 1 and 2.
	for shift := 0; shift < 3; shift++ {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			s := enc.EncodeToString(secret[shift:])
			for i := 0; i+12 <= len(s); i += 4 {
				if !strings.ContainsRune(s[i:i+12], '=') {
					out = append(out, s[i:i+12])
				}
			}
		}
	}
	return out
}

// Find returns the first form of secret that text contains, or "".
func Find(text string, secret []byte) string {
	for _, f := range Forms(secret) {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

// FindString returns the first substring of Window characters of secret
// (a key as text, such as a JWK's base64url d) that text contains, or "".
func FindString(text, secret string) string {
	for i := 0; i+Window <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+Window]) {
			return secret[i : i+Window]
		}
	}
	return ""
}
