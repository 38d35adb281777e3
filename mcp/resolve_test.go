package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveUnicodeEquivalent: a missing name is looked up by its NFC
// form, as the reference filesystem server does, so a link named in NFD is
// followed when reached by its NFC spelling.
func TestResolveUnicodeEquivalent(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "outside")
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(dir, "allowed")
	if err := os.Mkdir(allowed, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(allowed, "cafe\u0301")); err != nil {
		t.Fatal(err)
	}
	got, _ := resolve(filepath.Join(allowed, "caf\u00e9", "secret"))
	if want := filepath.Join(outside, "secret"); got != want {
		t.Fatalf("resolve = %q, want %q", got, want)
	}
	// An ASCII name that does not exist is not matched to anything.
	if got, _ := resolve(filepath.Join(allowed, "cafe", "x")); got != filepath.Join(allowed, "cafe", "x") {
		t.Fatalf("resolve ascii = %q", got)
	}
}
