package key_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/tickettool/tickettool/key"
)

// FuzzParseKey: whatever key string ParseSigning or ParseVerifying
// accepts writes back as the same text, with at most the final newline
// added, so one key has one text.
func FuzzParseKey(f *testing.F) {
	h, _ := key.NewHMAC("fuzz", bytes.Repeat([]byte{1}, key.HMACBytes))
	e, _ := key.NewEd25519("example.com/fuzz", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32)))
	for _, s := range []string{h.SecretText(), e.SecretText(), e.Verifying().String(), "PRIVATE+KEY+a+00000000+AQ==", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if k, err := key.ParseSigning(s); err == nil {
			if again := k.SecretText(); again != s && again != s+"\n" {
				t.Fatalf("accepted secret %q writes as %q", s, again)
			}
		}
		if v, err := key.ParseVerifying(s); err == nil && v.Alg() == key.Ed25519 && !bytes.HasPrefix([]byte(s), []byte("PRIVATE+KEY+")) {
			if again := v.String(); again != s && again+"\n" != s {
				t.Fatalf("accepted public key %q writes as %q", s, again)
			}
		}
	})
}

// FuzzParseHolder: ParseHolder and ParseHolderPublic never panic, a key
// ParseHolder accepts has a public JWK ParseHolderPublic accepts with the
// same thumbprint, and no JWK is both private and public.
func FuzzParseHolder(f *testing.F) {
	f.Add([]byte(rfc8037Private))
	f.Add([]byte(rfc8037Public))
	f.Add([]byte(`{"kty":"EC","crv":"P-256","x":"AA","y":"AA","d":"AA"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, errPriv := key.ParseHolder(data)
		_, errPub := key.ParseHolderPublic(data)
		if errPriv == nil && errPub == nil {
			t.Fatal("a JWK parsed as private and as public")
		}
		if errPriv != nil {
			return
		}
		p, err := key.ParseHolderPublic(h.Public().JWK())
		if err != nil || p.Thumbprint() != h.Thumbprint() {
			t.Fatalf("public JWK of an accepted key: %v", err)
		}
	})
}
