package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteApproveOutLink: a link planted at --out after approve checked
// the name (while the person read what they approve) is not followed: the
// write is refused, naming the path, and the link's target is unchanged.
// An existing file is refused the same way; a new name gets the
// discharges, one per line, mode 0600.
func TestWriteApproveOutLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "CODE.dis")
	if err := checkApproveOut(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	err := writeApproveOut(link, []string{"dis1_a"})
	if code, _ := classify(err); code != exitUsage || err == nil || !strings.Contains(err.Error(), link) {
		t.Fatalf("planted link: exit %d, %v", code, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine\n" {
		t.Fatalf("written through the link: %q", b)
	}
	if err := writeApproveOut(target, []string{"dis1_a"}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("existing file: %v", err)
	}
	fresh := filepath.Join(dir, "new.dis")
	if err := writeApproveOut(fresh, []string{"dis1_a", "dis1_b"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(fresh)
	if b, _ := os.ReadFile(fresh); err != nil || string(b) != "dis1_a\ndis1_b\n" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %q %v", b, err)
	}
}
