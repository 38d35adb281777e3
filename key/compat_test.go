package key_test

// The key files and strings tickettool wrote before package key
// existed keep loading, unchanged. key/testdata holds them, written by the
// CLI of commit 7d175ce (see testdata/README) and first loaded by the API
// that wrote them (commit "key: testdata written by today's CLI"). Here
// package key loads them, and mints, verifies and signs with them.

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// private copies a testdata file to a temporary file of mode 0600 (git
// keeps no file modes) and returns its path.
func private(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(readFile(t, filepath.Join("testdata", name))), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	return strings.TrimSpace(readFile(t, filepath.Join("testdata", name)))
}

func TestCompatKeyFiles(t *testing.T) {
	for _, c := range []struct {
		file string
		id   string
		alg  key.Alg
	}{
		{"root-hmac.key", "root-hmac", key.HMACSHA256},
		{"receipts-hmac.key", "receipts-hmac", key.HMACSHA256},
		{"root-ed25519.key", "root-2026", key.Ed25519},
		{"receipts.key", "receipts", key.Ed25519},
	} {
		sk, err := key.ReadSigningFile(private(t, c.file))
		if err != nil || sk.ID() != c.id || sk.Alg() != c.alg {
			t.Fatalf("%s: %v, %v", c.file, sk, err)
		}
		// Unchanged: the text package key writes is the file's, byte for byte.
		if got := sk.SecretText(); got != readFile(t, filepath.Join("testdata", c.file)) {
			t.Errorf("%s: SecretText differs from the file", c.file)
		}
		vk, err := key.ReadVerifyingFile(private(t, c.file))
		if err != nil || !vk.Equal(sk.Verifying()) {
			t.Fatalf("%s as verifying key: %v", c.file, err)
		}
		if c.alg != key.Ed25519 {
			continue
		}
		pub, err := key.ReadVerifyingFile(filepath.Join("testdata", c.file+".pub"))
		if err != nil || !pub.Equal(sk.Verifying()) {
			t.Fatalf("%s.pub: %v", c.file, err)
		}
		if pub.String()+"\n" != readFile(t, filepath.Join("testdata", c.file+".pub")) {
			t.Errorf("%s.pub: String differs from the file", c.file)
		}
		if _, err := key.ReadSigningFile(filepath.Join("testdata", c.file+".pub")); err == nil {
			t.Errorf("%s.pub read as a signing key", c.file)
		}
	}
}

func TestCompatHolderFiles(t *testing.T) {
	for _, c := range []struct {
		name string
		alg  key.Alg
	}{{"agent-es256", key.ES256}, {"agent-eddsa", key.Ed25519}} {
		h, err := key.ReadHolderFile(private(t, c.name+".jwk"))
		if err != nil || h.Alg() != c.alg {
			t.Fatalf("%s: %v %v", c.name, h, err)
		}
		jkt := testdata(t, c.name+".jkt")
		pub, err := key.ParseHolderPublic([]byte(testdata(t, c.name+".jwk.pub")))
		if err != nil || h.Thumbprint() != jkt || pub.Thumbprint() != jkt {
			t.Fatalf("%s: thumbprints %s, %s; want %s (%v)", c.name, h.Thumbprint(), pub.Thumbprint(), jkt, err)
		}
		// Unchanged: the public JWK is the .pub file's, and WriteFile
		// writes the private file's bytes.
		if string(h.Public().JWK()) != testdata(t, c.name+".jwk.pub") {
			t.Errorf("%s: public JWK differs from the .pub file", c.name)
		}
		out := filepath.Join(t.TempDir(), "again.jwk")
		if err := h.WriteFile(out); err != nil || readFile(t, out) != readFile(t, filepath.Join("testdata", c.name+".jwk")) {
			t.Errorf("%s: WriteFile differs from the file (%v)", c.name, err)
		}
		msg := []byte("rebind")
		sig, err := h.Sign(msg)
		if err != nil || !pub.Verify(msg, sig) {
			t.Fatalf("%s: signature does not verify: %v", c.name, err)
		}
		p, err := dpop.Make(h, "POST", "mcp://workspace/read_file", dpop.MakeOptions{IssuedAt: time.Unix(1_800_000_000, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dpop.Verify(p, dpop.Expectations{Method: "POST", URI: "mcp://workspace/read_file", Thumbprint: jkt}, time.Unix(1_800_000_000, 0)); err != nil {
			t.Fatalf("%s: proof: %v", c.name, err)
		}
	}
}

// TestCompatTickets: tickets minted (and rebound) by the old code verify
// under the keys read by package key, and keys read by package key mint
// tickets that verify.
func TestCompatTickets(t *testing.T) {
	hk, err := key.ReadVerifyingFile(private(t, "root-hmac.key"))
	if err != nil {
		t.Fatal(err)
	}
	ek, err := key.ReadVerifyingFile(filepath.Join("testdata", "root-ed25519.key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	ring, err := token.NewKeyring(hk, ek)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ file, holder string }{
		{"ticket-hmac.txt", ""},
		{"ticket-ed25519.txt", "agent-eddsa.jkt"},
		{"ticket-ed25519-rebound.txt", "agent-es256.jkt"},
	} {
		tk, err := token.Parse(testdata(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		d, err := verify.Validate(tk, ring, now, nil)
		if err != nil || !d.Allowed {
			t.Fatalf("%s: %v %v", c.file, err, d.Refusals)
		}
		if c.holder != "" {
			s, _ := tk.UnverifiedScope()
			if got := base64.RawURLEncoding.EncodeToString(s.Holder()); got != testdata(t, c.holder) {
				t.Fatalf("%s: bound to %q, want %s", c.file, got, c.holder)
			}
		}
	}
	// A rebinding by the current holder, read from its old file.
	bound, _ := token.Parse(testdata(t, "ticket-ed25519-rebound.txt"))
	carol, _ := key.ReadHolderFile(private(t, "agent-es256.jwk"))
	eddsa, _ := key.ReadHolderFile(private(t, "agent-eddsa.jwk"))
	hc, _ := caveat.NewHolder(eddsa.Thumbprint())
	back, err := bound.Attenuate([]caveat.Caveat{hc}, &token.Options{Holder: carol})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := verify.Validate(back, ring, now, nil); err != nil || !d.Allowed {
		t.Fatalf("rebound again: %v %v", err, d.Refusals)
	}
	for _, f := range []string{"root-hmac.key", "root-ed25519.key"} {
		sk, err := key.ReadSigningFile(private(t, f))
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := caveat.ParseAll([]string{"tools=read_file"}, now)
		tk, err := token.Mint(sk, cs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := verify.Validate(tk, ring, now, nil); err != nil || !d.Allowed {
			t.Fatalf("%s: new ticket: %v %v", f, err, d.Refusals)
		}
	}
}

// TestCompatReceipts: logs and checkpoints the old code signed verify
// under the keys read by package key; the keys sign new checkpoints that
// are byte for byte the old ones.
func TestCompatReceipts(t *testing.T) {
	for _, c := range []struct{ log, pub string }{
		{"receipts-hmac", "receipts-hmac.key"},
		{"receipts", "receipts.key.pub"},
	} {
		var vk *key.Verifying
		var err error
		if strings.HasSuffix(c.pub, ".pub") {
			vk, err = key.ReadVerifyingFile(filepath.Join("testdata", c.pub))
		} else {
			vk, err = key.ReadVerifyingFile(private(t, c.pub))
		}
		if err != nil {
			t.Fatal(err)
		}
		logPath := filepath.Join("testdata", c.log+".log")
		cp := []byte(readFile(t, filepath.Join("testdata", c.log+".checkpoint")))
		s, err := chain.VerifyCheckpoint(logPath, cp, vk, "tickettool")
		if err != nil || s.Count != 1 {
			t.Fatalf("%s: %v", c.log, err)
		}
		sk, err := key.ReadSigningFile(private(t, c.log+".key"))
		if err != nil {
			t.Fatal(err)
		}
		again, err := chain.MakeCheckpoint(logPath, sk, "tickettool")
		if err != nil || string(again) != string(cp) {
			t.Fatalf("%s: checkpoint signed again differs (%v)", c.log, err)
		}
	}
}
