package keyfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteNew(t *testing.T) {
	old := syscall.Umask(0) // the mode must not depend on the umask
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := filepath.Join(dir, "secret.key")
	if err := WriteNew(p, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o, want 0600", fi.Mode().Perm())
	}
	// Never overwrite, and never follow a planted link.
	if err := WriteNew(p, []byte("other"), 0o600); !errors.Is(err, ErrExists) {
		t.Fatalf("second write: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "s3cret" {
		t.Fatal("file was overwritten")
	}
	link := filepath.Join(dir, "planted")
	target := filepath.Join(dir, "target")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(link, []byte("x"), 0o600); !errors.Is(err, ErrExists) {
		t.Fatalf("write through a planted symlink: %v", err)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatal("the symlink's target was created")
	}
}

// TestCreateRefusesLinkToExisting: a link planted at the path to a file
// of the writer's is refused, naming the file as the caller does, and the
// file it points to is unchanged.
func TestCreateRefusesLinkToExisting(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "x.dis")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	err := Create("discharge file", link, []byte("dis1_x\n"), 0o600)
	if !errors.Is(err, ErrExists) || err.Error() != "discharge file "+link+" already exists" {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Fatalf("the link's target was written: %q", b)
	}
}
