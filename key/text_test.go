package key_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/tickettool/tickettool/key"
)

func TestTextRoundTrip(t *testing.T) {
	for _, a := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		k, _ := key.Generate(a, "example.com/receipts")
		text := k.SecretText()
		if !strings.HasPrefix(text, "PRIVATE+KEY+example.com/receipts+") || !strings.HasSuffix(text, "\n") {
			t.Fatalf("%v: %q", a, text)
		}
		for _, in := range []string{text, strings.TrimSuffix(text, "\n")} {
			back, err := key.ParseSigning(in)
			if err != nil || back.SecretText() != text {
				t.Fatalf("%v: round trip: %v", a, err)
			}
			v, err := key.ParseVerifying(in)
			if err != nil || !v.Equal(k.Verifying()) {
				t.Fatalf("%v: verifying key of the secret string: %v", a, err)
			}
		}
		if a == key.Ed25519 {
			pub := k.Verifying().String()
			v, err := key.ParseVerifying(pub)
			if err != nil || v.String() != pub || !v.Equal(k.Verifying()) {
				t.Fatalf("public round trip: %v", err)
			}
			if _, err := key.ParseSigning(pub); !errors.Is(err, key.ErrPublic) {
				t.Fatalf("public string as signing key: %v", err)
			}
		}
	}
}

// TestNoteKeys: the Ed25519 key strings are x/mod/sumdb/note's own.
func TestNoteKeys(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "example.com/x")
	if err != nil {
		t.Fatal(err)
	}
	k, err := key.ParseSigning(skey)
	if err != nil {
		t.Fatal(err)
	}
	if k.SecretText() != skey+"\n" || k.Verifying().String() != vkey {
		t.Fatal("text differs from note's")
	}
	v, err := key.ParseVerifying(vkey)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := k.NoteSigner()
	nv, _ := v.NoteVerifier()
	msg, err := note.Sign(&note.Note{Text: "hello\n"}, s)
	if err != nil {
		t.Fatal(err)
	}
	theirs, _ := note.NewVerifier(vkey)
	for _, ver := range []note.Verifier{nv, theirs} {
		if _, err := note.Open(msg, note.VerifierList(ver)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	h, _ := key.NewHMAC("name", bytes.Repeat([]byte{0x41}, 32))
	good := strings.TrimSpace(h.SecretText())
	secretB64 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x41}, 32))
	e, _ := key.NewEd25519("name", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32)))
	ed := strings.TrimSpace(e.SecretText())
	long, _ := key.NewHMAC(strings.Repeat("n", key.MaxIDBytes), bytes.Repeat([]byte{0x41}, 32))
	longText := long.SecretText()
	cases := []string{
		"", "PRIVATE+KEY+", good + "\n\n", good + " ", " " + good, strings.Replace(good, "name", "na me", 1),
		strings.Replace(good, "PRIVATE+KEY+name+", "PRIVATE+KEY+name+0", 1),
		strings.ToUpper(good[:20]) + good[20:],
		good[:len(good)-2] + "A=",                                             // other secret: hash mismatch
		ed[:len(ed)-1] + "\n",                                                 // truncated base64
		strings.TrimPrefix(good, "PRIVATE+KEY+"),                              // public HMAC
		"PRIVATE+KEY+name+00000000+" + secretB64,                              // raw secret, no type
		"name+00000000+" + base64.StdEncoding.EncodeToString([]byte{2, 1, 2}), // unknown type
		strings.Replace(longText, "+", "n+", 3),                               // id of 65 bytes
		strings.Replace(good, "name", "na+me", 1),
		strings.Repeat("a", key.MaxFileBytes+1),
	}
	for _, c := range cases {
		for name, parse := range map[string]func(string) error{
			"ParseSigning":   func(s string) error { _, err := key.ParseSigning(s); return err },
			"ParseVerifying": func(s string) error { _, err := key.ParseVerifying(s); return err },
		} {
			err := parse(c)
			if !errors.Is(err, key.ErrMalformed) {
				t.Errorf("%s(%.40q): %v", name, c, err)
				continue
			}
			if strings.Contains(err.Error(), secretB64[:8]) || strings.Contains(err.Error(), "QUFB") {
				t.Errorf("error echoes key material: %v", err)
			}
		}
	}
	if _, err := key.ParseSigning(longText); err != nil {
		t.Fatalf("id of %d bytes: %v", key.MaxIDBytes, err)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	k, _ := key.Generate(key.Ed25519, "name")
	h, _ := key.Generate(key.HMACSHA256, "name")
	sp, pp, hp := filepath.Join(dir, "secret.key"), filepath.Join(dir, "public.key"), filepath.Join(dir, "hmac.pub")
	if err := k.WriteFile(sp); err != nil {
		t.Fatal(err)
	}
	if err := k.Verifying().WriteFile(pp); err != nil {
		t.Fatal(err)
	}
	if err := h.Verifying().WriteFile(hp); err != nil { // an HMAC verifying key is the secret
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{sp: 0o600, pp: 0o644, hp: 0o600} {
		st, _ := os.Stat(p)
		if st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", p, st.Mode(), mode)
		}
	}
	if err := h.WriteFile(sp); err == nil {
		t.Fatal("key file overwritten")
	}
	if back, err := key.ReadSigningFile(sp); err != nil || back.SecretText() != k.SecretText() {
		t.Fatalf("read back: %v", err)
	}
	if _, err := key.ReadSigningFile(pp); !errors.Is(err, key.ErrPublic) {
		t.Fatalf("public file as signing key: %v", err)
	}
	if v, err := key.ReadVerifyingFile(pp); err != nil || !v.Equal(k.Verifying()) {
		t.Fatalf("public file: %v", err)
	}
	for _, p := range []string{sp, hp} {
		for _, mode := range []os.FileMode{0o640, 0o604, 0o660, 0o601} {
			os.Chmod(p, mode)
			if _, err := key.ReadSigningFile(p); !errors.Is(err, key.ErrFileMode) {
				t.Errorf("%s mode %v: ReadSigningFile %v", p, mode, err)
			}
			if _, err := key.ReadVerifyingFile(p); !errors.Is(err, key.ErrFileMode) {
				t.Errorf("%s mode %v: ReadVerifyingFile %v", p, mode, err)
			}
		}
		for _, mode := range []os.FileMode{0o400, 0o700} {
			os.Chmod(p, mode)
			if _, err := key.ReadVerifyingFile(p); err != nil {
				t.Errorf("%s mode %v: %v", p, mode, err)
			}
		}
	}
	os.Chmod(pp, 0o666) // a public key file's mode is the owner's business
	if _, err := key.ReadVerifyingFile(pp); err != nil {
		t.Errorf("public file of mode 0666: %v", err)
	}
	if _, err := key.ReadSigningFile(dir); !errors.Is(err, key.ErrMalformed) {
		t.Fatalf("directory read as a key: %v", err)
	}
	big := filepath.Join(dir, "big.key")
	os.WriteFile(big, bytes.Repeat([]byte("a"), key.MaxFileBytes+1), 0o600)
	if _, err := key.ReadSigningFile(big); !errors.Is(err, key.ErrMalformed) {
		t.Fatalf("long file: %v", err)
	}
	if _, err := key.ReadSigningFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
