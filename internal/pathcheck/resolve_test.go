package pathcheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	got, _ := Resolve(filepath.Join(allowed, "caf\u00e9", "secret"))
	if want := filepath.Join(outside, "secret"); got != want {
		t.Fatalf("resolve = %q, want %q", got, want)
	}
	// An ASCII name that does not exist is not matched to anything.
	if got, _ := Resolve(filepath.Join(allowed, "cafe", "x")); got != filepath.Join(allowed, "cafe", "x") {
		t.Fatalf("resolve ascii = %q", got)
	}
}

// TestResolveLookalikes: every missing component is looked up by NFC form,
// ASCII or not, and several matches are ambiguous.
func TestResolveLookalikes(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, link := range []string{"lin\u212a", "q\u037e", "v\u1fef", "\u212bx"} {
		if err := os.Symlink(out, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "A\u030ax"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"linK/f", out + "/f"},
		{"q;/f", out + "/f"},
		{"v`/f", out + "/f"},
		{"link/f", dir + "/link/f"}, // NFC does not fold case
		{"\u212bx/f", out + "/f"},   // exists byte for byte
		{"A\u030ax/f", dir + "/A\u030ax/f"},
	} {
		got, err := Resolve(filepath.Join(dir, tc.in))
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := Resolve(filepath.Join(dir, "\u00c5x", "f")); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("Resolve(Åx/f): %v, want ambiguous", err)
	}
	if _, err := WithResolved([]string{filepath.Join(dir, "\u00c5x")}, ""); err == nil || !strings.Contains(err.Error(), "\u00c5x") {
		t.Errorf("withResolved: %v", err)
	}
}
