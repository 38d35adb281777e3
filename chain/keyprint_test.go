package chain

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"

	"github.com/tickettool/tickettool/internal/secrettest"
)

// TestKeysNeverPrintNested prints every kind of Key with every fmt verb,
// as the operand and nested in structs, slices, maps and interfaces
// (exported and unexported fields), and checks that no output shows any 8
// bytes of the secret in any common encoding. (TestKeyNeverPrints checks
// the operand alone with fixed keys.)
func TestKeysNeverPrintNested(t *testing.T) {
	secret := make([]byte, HMACKeySize)
	rand.Read(secret)
	hk, err := NewHMACKey("receipts-h", secret)
	if err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	ek, err := NewEd25519Key("receipts-e", priv)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		key    *Key
		secret []byte
	}{
		{"hmac", hk, secret},
		{"ed25519 private", ek, priv.Seed()},
		{"ed25519 public (of the private)", ek.VerifierKey(), priv.Seed()},
	} {
		t.Run(c.name, func(t *testing.T) {
			if leak := secrettest.Check(c.key, c.secret); leak != "" {
				t.Error(leak)
			}
			if bad := secrettest.CheckRedacted(c.key, c.key.String()); bad != "" {
				t.Error(bad)
			}
		})
	}
}
