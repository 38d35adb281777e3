package key_test

// These tests load key/testdata with the API that wrote it (issue #17): the
// files were made by tickettool keygen, holder, mint, attenuate, verify
// --receipts and receipt checkpoint before the key package existed. When
// that API is replaced, this file gives way to compat_test.go, which loads
// the same, unchanged files with package key.

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// private copies a testdata file to a temporary file of mode 0600 (git
// keeps no file modes) and returns its path.
func private(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestOldAPILoadsTestdata(t *testing.T) {
	keys := map[string]string{}
	for _, name := range []string{"root-hmac.key", "receipts-hmac.key", "root-ed25519.key", "receipts.key"} {
		k, err := chain.ReadKeyFile(private(t, name))
		if err != nil || !k.CanSign() {
			t.Fatalf("%s: %v (can sign %v)", name, err, k.CanSign())
		}
		pub := name + ".pub"
		if k.Alg() == chain.AlgEd25519 {
			p, err := chain.ReadKeyFile(filepath.Join("testdata", pub))
			if err != nil || p.CanSign() || !p.PublicKey().Equal(k.PublicKey()) {
				t.Fatalf("%s: %v", pub, err)
			}
		}
		keys[name] = k.Name()
	}
	if keys["root-hmac.key"] != "root-hmac" || keys["root-ed25519.key"] != "root-2026" || keys["receipts.key"] != "receipts" {
		t.Fatalf("key names: %v", keys)
	}
	for _, alg := range []string{"es256", "eddsa"} {
		b, err := os.ReadFile(filepath.Join("testdata", "agent-"+alg+".jwk"))
		if err != nil {
			t.Fatal(err)
		}
		priv, err := dpop.ParsePrivateJWK(b)
		if err != nil {
			t.Fatal(err)
		}
		jkt, _ := dpop.ThumbprintOf(priv.Public())
		pb, _ := os.ReadFile(filepath.Join("testdata", "agent-"+alg+".jwk.pub"))
		pub, err := dpop.ParsePublicJWK(pb)
		if err != nil {
			t.Fatal(err)
		}
		pjkt, _ := dpop.Thumbprint(pub)
		if want := readText(t, "agent-"+alg+".jkt"); jkt != want || pjkt != want {
			t.Fatalf("%s: thumbprints %s, %s; want %s", alg, jkt, pjkt, want)
		}
	}
}

func TestOldAPIVerifiesTestdataTickets(t *testing.T) {
	hk, _ := chain.ReadKeyFile(private(t, "root-hmac.key"))
	hs, _ := token.NewHMACKey(hk.Name(), hk.HMACSecret())
	ek, _ := chain.ReadKeyFile(filepath.Join("testdata", "root-ed25519.key.pub"))
	ev, _ := token.NewEd25519PublicKey(ek.Name(), ek.PublicKey())
	ring, err := token.NewKeyring(hs.Verifying(), ev)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"ticket-hmac.txt", "ticket-ed25519.txt", "ticket-ed25519-rebound.txt"} {
		tk, err := token.Parse(readText(t, name))
		if err != nil {
			t.Fatal(err)
		}
		d, err := verify.Validate(tk, ring, now, nil)
		if err != nil || !d.Allowed {
			t.Fatalf("%s: %v %v", name, err, d.Refusals)
		}
		if h, _ := tk.UnverifiedScope(); h.Holder() != nil {
			jkt := base64.RawURLEncoding.EncodeToString(h.Holder())
			want := readText(t, "agent-eddsa.jkt")
			if name == "ticket-ed25519-rebound.txt" {
				want = readText(t, "agent-es256.jkt")
			}
			if jkt != want {
				t.Fatalf("%s: bound to %s, want %s", name, jkt, want)
			}
		}
	}
}

func TestOldAPIVerifiesTestdataReceipts(t *testing.T) {
	for _, c := range []struct{ key, log string }{
		{"receipts-hmac.key", "receipts-hmac"},
		{"receipts.key.pub", "receipts"},
	} {
		var k *chain.Key
		var err error
		if strings.HasSuffix(c.key, ".pub") {
			k, err = chain.ReadKeyFile(filepath.Join("testdata", c.key))
		} else {
			k, err = chain.ReadKeyFile(private(t, c.key))
		}
		if err != nil {
			t.Fatal(err)
		}
		cp, _ := os.ReadFile(filepath.Join("testdata", c.log+".checkpoint"))
		s, err := chain.VerifyCheckpoint(filepath.Join("testdata", c.log+".log"), cp, k, "tickettool")
		if err != nil || s.Count != 1 {
			t.Fatalf("%s: %v", c.log, err)
		}
	}
}
