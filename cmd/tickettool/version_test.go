package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "tickettool (devel) revision unknown ticket format 1"},
		{&debug.BuildInfo{}, "tickettool (devel) revision unknown ticket format 1"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}},
			"tickettool (devel) revision " + rev + " dirty ticket format 1"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}},
			"tickettool v1.2.0 revision " + rev + " ticket format 1"},
	} {
		if got := versionLine(tc.bi); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestVersionCommand: version and --version print the same one line on
// stdout; extra arguments are a usage error.
func TestVersionCommand(t *testing.T) {
	var first string
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 0 || errb.Len() > 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		if !strings.HasPrefix(out.String(), "tickettool ") || !strings.HasSuffix(out.String(), " ticket format 1\n") {
			t.Errorf("%q: %q", args, out.String())
		}
		if first == "" {
			first = out.String()
		} else if out.String() != first {
			t.Errorf("%q prints %q, version %q", args, out.String(), first)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"version", "x"}, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Errorf("version x: exit %d, want 2", code)
	}
}

// TestVersionBuilt builds this tree's tickettool with VCS stamping, in a
// new git repository holding a copy of the tree (the go command stamps
// nothing in a linked git worktree), and checks that it reports that
// repository's revision, clean, and "dirty" once a file changed.
func TestVersionBuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	root := filepath.Join("..", "..")
	src := filepath.Join(t.TempDir(), "src")
	for _, name := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join(root, name), filepath.Join(src, name))
	}
	// The packages tickettool is built from (their Go files and the files
	// they embed), and nothing else.
	out, err := exec.Command("go", "list", "-deps", "-f",
		"{{if not .Standard}}{{.Dir}}{{range .EmbedFiles}}\t{{.}}{{end}}\n{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(root)
	for line := range strings.Lines(string(out)) {
		fields := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		dir := fields[0]
		rel, err := filepath.Rel(abs, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // a dependency's, from the module cache
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			copyFile(t, f, filepath.Join(src, rel, filepath.Base(f)))
		}
		for _, f := range fields[1:] {
			copyFile(t, filepath.Join(dir, f), filepath.Join(src, rel, f))
		}
	}
	git(src, "init", "-q")
	git(src, "add", "-A")
	git(src, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "t")
	head := git(src, "rev-parse", "HEAD")
	build := func() string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "tickettool")
		cmd := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/tickettool")
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	version := regexp.MustCompile(`^tickettool (\(devel\)|v[0-9][^ ]*-` + head[:12] + `(\+dirty)?) revision ` + head + `( dirty)? ticket format 1\n$`)
	if got := build(); !version.MatchString(got) || strings.Contains(got, "dirty") {
		t.Errorf("clean build: --version prints %q, want revision %s, not dirty", got, head)
	}
	if err := os.WriteFile(filepath.Join(src, "new.txt"), []byte("not committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := build(); !version.MatchString(got) || !strings.HasSuffix(got, " dirty ticket format 1\n") {
		t.Errorf("dirty build: --version prints %q, want revision %s and dirty", got, head)
	}
}

func readFile2(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, readFile2(t, from), 0o644); err != nil {
		t.Fatal(err)
	}
}
