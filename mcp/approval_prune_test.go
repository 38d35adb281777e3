package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestArgsFilesCapped: the argument files a refused call writes to the
// discharge directory do not pile up: past maxArgsFiles the oldest by
// modification time are removed, the one just written is kept, and no
// other file (discharges, other JSON, a directory of the same pattern)
// is touched.
func TestArgsFilesCapped(t *testing.T) {
	p, _, dir, _ := approvalProxy(t)
	base := time.Now().Add(-time.Hour)
	var names []string
	for i := range maxArgsFiles {
		name := fmt.Sprintf("AAAAA-BBBBB-%016x.json", i)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	others := []string{"notes.json", "AAAAA-BBBBB-0000000000000000.dis", "aaaaa-bbbbb-0000000000000000.json", "AAAAA-BBBBB-00000000000000000.json"}
	for _, name := range others {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := base.Add(-time.Hour)
		os.Chtimes(filepath.Join(dir, name), old, old)
	}
	if err := os.Mkdir(filepath.Join(dir, "CCCCC-DDDDD-0000000000000000.json"), 0o700); err != nil {
		t.Fatal(err)
	}

	for i := range 3 {
		if _, err := p.writeArgs(fmt.Sprintf("ZZZZZ-ZZZZZ-%016x", i), []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	count := 0
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if argsFile.MatchString(e.Name()) && e.Type().IsRegular() {
			count++
		}
	}
	if count != maxArgsFiles {
		t.Fatalf("%d argument files, want %d", count, maxArgsFiles)
	}
	for i, name := range names {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := err != nil; gone != (i < 3) {
			t.Errorf("%s (age rank %d): removed %v", name, i, gone)
		}
	}
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("ZZZZZ-ZZZZZ-%016x.json", i))); err != nil {
			t.Errorf("a file just written was removed: %v", err)
		}
	}
	for _, name := range append(others, "CCCCC-DDDDD-0000000000000000.json") {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s touched: %v", name, err)
		}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".args-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
