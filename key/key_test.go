package key_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/cryptotest"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/key"
)

func TestAlgStrings(t *testing.T) {
	for a, want := range map[key.Alg]string{key.HMACSHA256: "hmac", key.Ed25519: "ed25519", key.ES256: "es256", 0: "alg(0)", 9: "alg(9)"} {
		if got := a.String(); got != want {
			t.Errorf("%d: %q, want %q", a, got, want)
		}
		back, err := key.ParseAlg(want)
		if (err == nil) != (a != 0 && a != 9) || err == nil && back != a {
			t.Errorf("ParseAlg(%q) = %v, %v", want, back, err)
		}
	}
	for _, s := range []string{"", "HMAC", "hmac-sha256", "EdDSA", "ES256", "rs256"} {
		if _, err := key.ParseAlg(s); err == nil {
			t.Errorf("ParseAlg(%q) accepted", s)
		}
	}
}

// TestIDRule is the one key-id rule, at its boundaries: every key, of
// every constructor and of Generate, and every key string obeys it.
func TestIDRule(t *testing.T) {
	ok := []string{"r", "root-2026", "example.com/receipts", "!", "~", strings.Repeat("a", key.MaxIDBytes), "a_b.c-d:e@f"}
	bad := []string{"", strings.Repeat("a", key.MaxIDBytes+1), "a b", "a+b", "+", "a\tb", "a\nb", "\x00", "\x7f", "é", "a\x80"}
	secret := bytes.Repeat([]byte{1}, key.HMACBytes)
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32))
	pub := priv.Public().(ed25519.PublicKey)
	makers := map[string]func(id string) error{
		"NewHMAC":          func(id string) error { _, err := key.NewHMAC(id, secret); return err },
		"NewEd25519":       func(id string) error { _, err := key.NewEd25519(id, priv); return err },
		"NewEd25519Public": func(id string) error { _, err := key.NewEd25519Public(id, pub); return err },
		"Generate":         func(id string) error { _, err := key.Generate(key.HMACSHA256, id); return err },
	}
	for name, mk := range makers {
		for _, id := range ok {
			if err := mk(id); err != nil {
				t.Errorf("%s(%q): %v", name, id, err)
			}
		}
		for _, id := range bad {
			err := mk(id)
			if !errors.Is(err, key.ErrMalformed) {
				t.Errorf("%s(%q) = %v, want ErrMalformed", name, id, err)
			} else if len(id) > 1 && strings.Contains(err.Error(), id) {
				t.Errorf("%s(%q): the error quotes the id: %v", name, id, err)
			}
		}
	}
}

func TestConstructorsRefuse(t *testing.T) {
	if _, err := key.NewHMAC("n", make([]byte, key.HMACBytes-1)); !errors.Is(err, key.ErrMalformed) {
		t.Error("short secret accepted")
	}
	if _, err := key.NewHMAC("n", make([]byte, key.HMACBytes+1)); !errors.Is(err, key.ErrMalformed) {
		t.Error("long secret accepted")
	}
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32))
	bad := bytes.Clone(priv)
	bad[40] ^= 1 // the public half no longer matches the seed
	if _, err := key.NewEd25519("n", bad); !errors.Is(err, key.ErrMalformed) {
		t.Error("inconsistent private key accepted")
	}
	if _, err := key.NewEd25519("n", priv[:63]); !errors.Is(err, key.ErrMalformed) {
		t.Error("short private key accepted")
	}
	if _, err := key.NewEd25519Public("n", make([]byte, 31)); !errors.Is(err, key.ErrMalformed) {
		t.Error("short public key accepted")
	}
	for _, a := range []key.Alg{0, key.ES256, 9} {
		if _, err := key.Generate(a, "n"); err == nil {
			t.Errorf("Generate(%v) made a root key", a)
		}
	}
}

// TestSmallOrderPublicKeys: an Ed25519 public key of small order, under
// which a universal signature verifies, is refused (the 14 encodings of
// spec/FORMAT.md §4.2: 7 y values, sign bit clear or set).
func TestSmallOrderPublicKeys(t *testing.T) {
	ys := []string{
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000000",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	}
	for _, y := range ys {
		for _, sign := range []byte{0, 0x80} {
			p := mustHex(t, y)
			p[31] |= sign
			if _, err := key.NewEd25519Public("n", p); !errors.Is(err, key.ErrMalformed) {
				t.Errorf("small-order key %x accepted", p)
			}
		}
	}
}

func TestSignVerify(t *testing.T) {
	for _, a := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		k, err := key.Generate(a, "k")
		if err != nil {
			t.Fatal(err)
		}
		v := k.Verifying()
		msg := []byte("message")
		sig, err := k.Sign(msg)
		if err != nil || !v.Verify(msg, sig) {
			t.Fatalf("%v: %v", a, err)
		}
		bad := bytes.Clone(sig)
		bad[0] ^= 1
		other, _ := key.Generate(a, "k")
		switch {
		case v.Verify(msg, bad):
			t.Errorf("%v: flipped signature verifies", a)
		case v.Verify([]byte("other"), sig):
			t.Errorf("%v: signature of another message verifies", a)
		case v.Verify(msg, sig[:len(sig)-1]):
			t.Errorf("%v: short signature verifies", a)
		case other.Verifying().Verify(msg, sig):
			t.Errorf("%v: another key verifies", a)
		}
		sum, ok := v.MAC(msg)
		if ok != (a == key.HMACSHA256) || ok && !bytes.Equal(sum[:], sig) {
			t.Errorf("%v: MAC = %x, %v; Sign = %x", a, sum, ok, sig)
		}
	}
}

// TestMACIsHMAC: MAC, whose short messages take the stack-buffer path,
// is crypto/hmac's HMAC-SHA256 for every message length, around the
// boundary of the fast path included.
func TestMACIsHMAC(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, key.HMACBytes)
	k, _ := key.NewHMAC("k", secret)
	for _, n := range []int{0, 1, 39, 63, 64, 65, 127, 128, 400} { // the fast path ends at 64
		msg := bytes.Repeat([]byte{byte(n)}, n)
		m := hmac.New(sha256.New, secret)
		m.Write(msg)
		if got, _ := k.Verifying().MAC(msg); !bytes.Equal(got[:], m.Sum(nil)) {
			t.Errorf("MAC of %d bytes differs from crypto/hmac", n)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		secret := rapid.SliceOfN(rapid.Byte(), key.HMACBytes, key.HMACBytes).Draw(t, "secret")
		msg := rapid.SliceOfN(rapid.Byte(), 0, 400).Draw(t, "msg")
		k, err := key.NewHMAC("k", secret)
		if err != nil {
			t.Fatal(err)
		}
		m := hmac.New(sha256.New, secret)
		m.Write(msg)
		if got, _ := k.Verifying().MAC(msg); !bytes.Equal(got[:], m.Sum(nil)) {
			t.Fatalf("MAC of %d bytes differs from crypto/hmac", len(msg))
		}
	})
}

// TestZeroKeys: zero and nil keys are errors, never panics.
func TestZeroKeys(t *testing.T) {
	var nilS *key.Signing
	var nilV *key.Verifying
	var nilH *key.Holder
	for _, s := range []*key.Signing{nilS, {}} {
		if _, err := s.Sign([]byte("m")); err == nil {
			t.Error("zero key signs")
		}
		if s.Verifying() != nil || s.SecretText() != "" || s.ID() != "" || s.Alg() != 0 {
			t.Error("zero signing key has a value")
		}
		if _, err := s.NoteSigner(); err == nil {
			t.Error("zero key signs notes")
		}
		if err := s.WriteFile(filepath.Join(t.TempDir(), "k")); err == nil {
			t.Error("zero key written")
		}
	}
	for _, v := range []*key.Verifying{nilV, {}} {
		if _, ok := v.MAC([]byte("m")); ok || v.Verify([]byte("m"), make([]byte, 64)) {
			t.Error("zero key verifies")
		}
		if _, err := v.NoteVerifier(); err == nil {
			t.Error("zero key verifies notes")
		}
	}
	for _, h := range []*key.Holder{nilH, {}} {
		if _, err := h.Sign([]byte("m")); err == nil || h.Thumbprint() != "" || h.Alg() != 0 {
			t.Error("zero holder key signs")
		}
	}
	var p *key.HolderPublic
	if p.Verify([]byte("m"), make([]byte, 64)) || p.JWK() != nil || (&key.HolderPublic{}).Verify(nil, nil) {
		t.Error("zero holder public key verifies")
	}
	_ = (key.Signing{}).String() + (key.Verifying{}).String() + (key.Holder{}).String()
}

func TestGenerateFollowsCryptoRand(t *testing.T) {
	for _, a := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		gen := func(seed uint64) string {
			cryptotest.SetGlobalRandom(t, seed)
			k, err := key.Generate(a, "root")
			if err != nil {
				t.Fatal(err)
			}
			return k.SecretText()
		}
		if x, y, z := gen(1), gen(1), gen(2); x != y || x == z {
			t.Errorf("%v: Generate does not follow crypto/rand", a)
		}
	}
	for _, a := range []key.Alg{key.ES256, key.Ed25519} {
		gen := func(seed uint64) string {
			cryptotest.SetGlobalRandom(t, seed)
			h, err := key.GenerateHolder(a)
			if err != nil {
				t.Fatal(err)
			}
			return h.Thumbprint()
		}
		if x, y, z := gen(5), gen(5), gen(6); x != y || x == z {
			t.Errorf("%v: GenerateHolder does not follow crypto/rand", a)
		}
	}
	for _, a := range []key.Alg{0, key.HMACSHA256, 9} {
		if _, err := key.GenerateHolder(a); err == nil {
			t.Errorf("GenerateHolder(%v) made a key", a)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
