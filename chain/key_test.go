package chain

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
)

func TestKeyText(t *testing.T) {
	for _, alg := range []Alg{AlgEd25519, AlgHMACSHA256} {
		k, err := GenerateKey(alg, "example.com/receipts")
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []*Key{k, k.VerifierKey()} {
			text, err := FormatKey(key)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseKey(text)
			if err != nil {
				t.Fatalf("%v: %v", key, err)
			}
			if back.String() != key.String() || back.CanSign() != key.CanSign() {
				t.Fatalf("round trip %v -> %v", key, back)
			}
			again, _ := FormatKey(back)
			if again != text {
				t.Fatal("text differs after a round trip")
			}
		}
	}
	// Ed25519 key strings are note's own.
	skey, vkey, err := note.GenerateKey(rand.Reader, "example.com/x")
	if err != nil {
		t.Fatal(err)
	}
	priv, err := ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := FormatKey(priv.VerifierKey()); text != vkey+"\n" {
		t.Fatalf("public form %q, note says %q", text, vkey)
	}
	if _, err := note.NewSigner(strings.TrimSpace(mustFormat(t, priv))); err != nil {
		t.Fatal(err)
	}
}

func mustFormat(t *testing.T, k *Key) string {
	s, err := FormatKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseKeyRefuses(t *testing.T) {
	k := hmacKey(t, "name", 0x41)
	good := strings.TrimSpace(mustFormat(t, k))
	secretB64 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x41}, 32))
	ed := strings.TrimSpace(mustFormat(t, seedKey(t, "name", 3)))
	cases := []string{
		"", "PRIVATE+KEY+", good + "\n\n", good + " ", " " + good, strings.Replace(good, "name", "na me", 1),
		strings.Replace(good, "PRIVATE+KEY+name+", "PRIVATE+KEY+name+0", 1),
		strings.ToUpper(good[:20]) + good[20:],
		good[:len(good)-2] + "A=",                                             // other secret: hash mismatch
		ed[:len(ed)-1] + "\n",                                                 // truncated base64
		strings.TrimPrefix(good, "PRIVATE+KEY+"),                              // public HMAC
		"PRIVATE+KEY+name+00000000+" + secretB64,                              // raw secret, no type
		"name+00000000+" + base64.StdEncoding.EncodeToString([]byte{2, 1, 2}), // unknown type
		strings.Repeat("a", MaxKeyFileBytes+1),
	}
	for _, c := range cases {
		_, err := ParseKey(c)
		if !errors.Is(err, ErrMalformedKey) {
			t.Errorf("%q: %v", c, err)
			continue
		}
		if strings.Contains(err.Error(), secretB64[:8]) || strings.Contains(err.Error(), "QUFB") {
			t.Errorf("error echoes key material: %v", err)
		}
	}
	if _, err := ParseKey(good + "\n"); err != nil {
		t.Fatal(err)
	}
}

func TestKeyNeverPrints(t *testing.T) {
	k := hmacKey(t, "name", 0x41)
	e := seedKey(t, "name", 0x41)
	for _, key := range []*Key{k, e} {
		secret := strings.TrimSpace(mustFormat(t, key))
		secret = secret[strings.LastIndex(secret, "+")+1:]
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%q", "%d", "%T"} {
			for _, arg := range []any{key, *key} {
				out := fmt.Sprintf(verb, arg)
				if strings.Contains(out, "AAAA") || strings.Contains(out, "QUFB") || strings.Contains(out, secret[4:12]) ||
					strings.Contains(out, "65 65 65") || strings.Contains(out, "414141") {
					t.Errorf("%s prints key material: %s", verb, out)
				}
			}
		}
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	k := seedKey(t, "name", 1)
	sp, pp := filepath.Join(dir, "secret.key"), filepath.Join(dir, "public.key")
	if err := WriteKeyFile(sp, k); err != nil {
		t.Fatal(err)
	}
	if err := WriteKeyFile(pp, k.VerifierKey()); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{sp: 0o600, pp: 0o644} {
		st, _ := os.Stat(p)
		if st.Mode().Perm() != mode {
			t.Fatalf("%s: mode %v", p, st.Mode())
		}
	}
	if err := WriteKeyFile(sp, hmacKey(t, "name", 2)); err == nil {
		t.Fatal("key file overwritten")
	}
	back, err := ReadKeyFile(sp)
	if err != nil || !back.CanSign() || back.KeyHash() != k.KeyHash() {
		t.Fatalf("%v", err)
	}
	if pub, err := ReadKeyFile(pp); err != nil || pub.CanSign() {
		t.Fatalf("%v", err)
	}
	os.Chmod(sp, 0o640)
	if _, err := ReadKeyFile(sp); !errors.Is(err, ErrKeyFileMode) {
		t.Fatalf("group-readable secret: %v", err)
	}
	if _, err := ReadKeyFile(dir); err == nil {
		t.Fatal("directory read as a key")
	}
}

func TestKeyConstructors(t *testing.T) {
	if _, err := NewHMACKey("name", make([]byte, 31)); !errors.Is(err, ErrMalformedKey) {
		t.Fatal("short secret accepted")
	}
	for _, name := range []string{"", "a b", "a+b", "a\nb", "\x00", strings.Repeat("n", MaxKeyNameBytes+1)} {
		if _, err := NewHMACKey(name, make([]byte, 32)); !errors.Is(err, ErrMalformedKey) {
			t.Fatalf("name %q accepted", name)
		}
	}
	e := seedKey(t, "n", 1)
	priv := make([]byte, 64)
	copy(priv, e.privKey())
	priv[40] ^= 1 // public half does not match the seed
	if _, err := NewEd25519Key("n", priv); !errors.Is(err, ErrMalformedKey) {
		t.Fatal("inconsistent private key accepted")
	}
	if _, err := GenerateKey(0, "n"); err == nil {
		t.Fatal("alg 0 generated")
	}
	if e.VerifierKey().PublicKey() == nil || hmacKey(t, "n", 1).PublicKey() != nil {
		t.Fatal("PublicKey")
	}
	if _, err := e.VerifierKey().NoteSigner(); !errors.Is(err, ErrPublicKey) {
		t.Fatal("public key signs notes")
	}
}
