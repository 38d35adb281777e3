package key_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/internal/secrettest"
	"github.com/tickettool/tickettool/key"
)

// TestKeysNeverPrint prints every key type of the package with every fmt
// verb, as the operand and nested in structs, slices, maps and interfaces
// (exported and unexported fields), and checks that no output shows any 8
// bytes of a secret in any common encoding, and that every verb prints
// String. (The tables of token, chain and dpop moved here with the keys.)
func TestKeysNeverPrint(t *testing.T) {
	secret := make([]byte, key.HMACBytes)
	rand.Read(secret)
	hk, err := key.NewHMAC("root-h", secret)
	if err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	ek, err := key.NewEd25519("root-e", priv)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, leak, got, want, redacted string) {
		t.Helper()
		if leak != "" {
			t.Error(leak)
		}
		if got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
		if redacted != "" {
			t.Error(redacted)
		}
	}
	t.Run("hmac signing", func(t *testing.T) {
		want := "key.Signing{id:root-h, alg:hmac, REDACTED}"
		check(t, secrettest.Check(hk, secret), hk.String(), want, secrettest.CheckRedacted(hk, want))
	})
	t.Run("hmac verifying", func(t *testing.T) {
		v := hk.Verifying()
		want := "key.Verifying{id:root-h, alg:hmac, REDACTED}"
		check(t, secrettest.Check(v, secret), v.String(), want, secrettest.CheckRedacted(v, want))
	})
	t.Run("ed25519 signing", func(t *testing.T) {
		want := "key.Signing{id:root-e, alg:ed25519, REDACTED}"
		check(t, secrettest.Check(ek, priv.Seed()), ek.String(), want, secrettest.CheckRedacted(ek, want))
	})
	t.Run("ed25519 verifying", func(t *testing.T) {
		v := ek.Verifying()
		want := strings.TrimSuffix(publicString(t, v), "\n") // its public key string
		check(t, secrettest.Check(v, priv.Seed()), v.String(), want, secrettest.CheckRedacted(v, want))
	})
	for _, alg := range []key.Alg{key.Ed25519, key.ES256} {
		t.Run("holder "+alg.String(), func(t *testing.T) {
			h, err := key.GenerateHolder(alg)
			if err != nil {
				t.Fatal(err)
			}
			want := "key.Holder{alg:" + alg.String() + ", jkt:" + h.Thumbprint() + ", REDACTED}"
			check(t, secrettest.Check(h, holderD(t, h)), h.String(), want, secrettest.CheckRedacted(h, want))
		})
	}
}

// TestSecretsHaveNoMarshaler: encoding/json and encoding.TextMarshaler
// would print a secret key's material if the types offered it; they do
// not, and json shows nothing of them.
func TestSecretsHaveNoMarshaler(t *testing.T) {
	hk, _ := key.Generate(key.HMACSHA256, "h")
	ek, _ := key.Generate(key.Ed25519, "e")
	hh, _ := key.GenerateHolder(key.ES256)
	for _, v := range []any{hk, ek, hk.Verifying(), hh} {
		if _, ok := v.(json.Marshaler); ok {
			t.Errorf("%T is a json.Marshaler", v)
		}
		if _, ok := v.(interface{ MarshalText() ([]byte, error) }); ok {
			t.Errorf("%T is an encoding.TextMarshaler", v)
		}
		b, err := json.Marshal(v)
		if err != nil || string(b) != "{}" {
			t.Errorf("json of %T: %s %v", v, b, err)
		}
	}
}

// publicString is v's key file text.
func publicString(t *testing.T, v *key.Verifying) string {
	t.Helper()
	p := t.TempDir() + "/k.pub"
	if err := v.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return readFile(t, p)
}

// holderD returns the private scalar or seed of h, read from its JWK file.
func holderD(t *testing.T, h *key.Holder) []byte {
	t.Helper()
	p := t.TempDir() + "/h.jwk"
	if err := h.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	var jwk struct{ D string }
	if err := json.Unmarshal([]byte(readFile(t, p)), &jwk); err != nil {
		t.Fatal(err)
	}
	d, err := base64.RawURLEncoding.DecodeString(jwk.D)
	if err != nil || len(d) != 32 {
		t.Fatalf("d: %v", err)
	}
	return d
}
