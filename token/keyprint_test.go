package token_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"

	"github.com/tickettool/tickettool/internal/secrettest"
	"github.com/tickettool/tickettool/token"
)

// TestKeysNeverPrint prints every key type of the package with every fmt
// verb, as the operand and nested in structs, slices, maps and interfaces
// (exported and unexported fields), and checks that no output shows any 8
// bytes of the secret in any common encoding.
func TestKeysNeverPrint(t *testing.T) {
	secret := make([]byte, token.HMACKeyBytes)
	rand.Read(secret)
	hk, err := token.NewHMACKey("root-h", secret)
	if err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	ek, err := token.NewEd25519Key("root-e", priv)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		check  func() string
		secret []byte
		want   string // what %v prints
		out    func() string
		redact func(want string) string
	}{
		{"hmac signing key", func() string { return secrettest.Check(hk, secret) }, secret,
			"token.SigningKey{id:root-h, mode:hmac, REDACTED}", hk.String,
			func(w string) string { return secrettest.CheckRedacted(hk, w) }},
		{"hmac verifying key", func() string { return secrettest.Check(hk.Verifying(), secret) }, secret,
			"token.VerifyingKey{id:root-h, mode:hmac, REDACTED}", hk.Verifying().String,
			func(w string) string { return secrettest.CheckRedacted(hk.Verifying(), w) }},
		{"ed25519 signing key", func() string { return secrettest.Check(ek, priv.Seed()) }, priv.Seed(),
			"token.SigningKey{id:root-e, mode:ed25519, REDACTED}", ek.String,
			func(w string) string { return secrettest.CheckRedacted(ek, w) }},
		{"ed25519 verifying key", func() string { return secrettest.Check(ek.Verifying(), priv.Seed()) }, priv.Seed(),
			"token.VerifyingKey{id:root-e, mode:ed25519, public}", ek.Verifying().String,
			func(w string) string { return secrettest.CheckRedacted(ek.Verifying(), w) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if leak := c.check(); leak != "" {
				t.Error(leak)
			}
			if got := c.out(); got != c.want {
				t.Errorf("String() = %q, want %q", got, c.want)
			}
			if bad := c.redact(c.want); bad != "" {
				t.Error(bad)
			}
		})
	}
}
