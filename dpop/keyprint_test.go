package dpop

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/base64"
	"testing"

	"github.com/tickettool/tickettool/internal/secrettest"
)

// TestHolderSignerNeverPrints prints a HolderSigner of each algorithm with
// every fmt verb, as the operand and nested in structs, slices, maps and
// interfaces (exported and unexported fields), and checks that no output
// shows any 8 bytes of the private key in any common encoding.
func TestHolderSignerNeverPrints(t *testing.T) {
	for _, alg := range []string{"EdDSA", "ES256"} {
		t.Run(alg, func(t *testing.T) {
			key, err := NewKey(alg)
			if err != nil {
				t.Fatal(err)
			}
			var secret []byte
			switch k := key.(type) {
			case ed25519.PrivateKey:
				secret = k.Seed()
			case *ecdsa.PrivateKey:
				secret, _ = k.Bytes()
			}
			h, err := NewHolderSigner(key)
			if err != nil {
				t.Fatal(err)
			}
			if leak := secrettest.Check(h, secret); leak != "" {
				t.Error(leak)
			}
			want := "dpop.HolderSigner{jkt:" + base64.RawURLEncoding.EncodeToString(h.Thumbprint()) + ", REDACTED}"
			if got := h.String(); got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			if bad := secrettest.CheckRedacted(h, want); bad != "" {
				t.Error(bad)
			}
		})
	}
}
