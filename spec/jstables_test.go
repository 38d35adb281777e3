package spec_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestJSTablesUpToDate: the JavaScript verifier's Unicode 15.0.0 tables
// (printable characters, simple case folding) are what their generator
// writes from Go's tables.
func TestJSTablesUpToDate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tables.ts")
	cmd := exec.Command("go", "run", "gen/tables.go", out)
	cmd.Dir = "../js"
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen/tables.go: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../js/src/tables.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("js/src/tables.ts differs from what js/gen/tables.go writes: run it from js/")
	}
}
