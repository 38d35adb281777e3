package bench

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The command line as whole processes: tickettool verify against a static Go "hello world", process
// launches alternating in the pair harness's ABBA batches. hyperfine would
// run all of one command's launches, then all of the other's: the very
// "minutes apart" that pairs avoid on a shared host.

// helloSource is the static Go "hello world" the CLI is compared with.
const helloSource = `package main

import "fmt"

func main() { fmt.Println("hello, world") }
`

// binaries holds the programs the process pairs launch, built once.
type binaries struct {
	dir, tickettool, static, hello string
}

// buildBinaries builds tickettool twice, with the toolchain's defaults
// (go build ./cmd/tickettool: dynamically linked where cgo is available,
// because package net then uses the C resolver) and as README.md's
// install line says (CGO_ENABLED=0: static), and the hello world with
// CGO_ENABLED=0 (static), into a temporary directory.
func buildBinaries(tb testing.TB) *binaries {
	tb.Helper()
	dir := tb.TempDir()
	bs := &binaries{dir: dir, tickettool: filepath.Join(dir, "tickettool"), static: filepath.Join(dir, "tickettool-static"), hello: filepath.Join(dir, "hello")}
	root, err := filepath.Abs("..")
	if err != nil {
		tb.Fatal(err)
	}
	run(tb, root, nil, "go", "build", "-o", bs.tickettool, "./cmd/tickettool")
	run(tb, root, []string{"CGO_ENABLED=0"}, "go", "build", "-o", bs.static, "./cmd/tickettool")
	src := filepath.Join(dir, "hellosrc")
	if err := os.MkdirAll(src, 0o755); err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, filepath.Join(src, "go.mod"), "module hello\n\ngo 1.26\n")
	writeFile(tb, filepath.Join(src, "main.go"), helloSource)
	run(tb, src, []string{"CGO_ENABLED=0"}, "go", "build", "-o", bs.hello, ".")
	return bs
}

func writeFile(tb testing.TB, path, text string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// run runs a command in dir and returns its standard output, failing tb
// with its standard error if it does not exit 0.
func run(tb testing.TB, dir string, env []string, name string, args ...string) string {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// linking says whether the ELF file at path asks for a dynamic loader.
func linking(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return "not ELF"
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "dynamically linked"
		}
	}
	return "statically linked"
}

// cliVerify returns the arguments of a tickettool verify of the scenario
// (the 4-block ticket, the in-scope request, the memory store) in the
// given mode ("hmac" or "ed25519"), with keys and the ticket made by the
// CLI itself in bs.dir.
func cliVerify(tb testing.TB, bs *binaries, mode string) []string {
	tb.Helper()
	dir := filepath.Join(bs.dir, mode)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	key := filepath.Join(dir, "root.key")
	mintAt := "--now=" + t0.Add(-time.Hour).Format(time.RFC3339)
	run(tb, dir, nil, bs.tickettool, "keygen", "--alg", mode, "--out", key, "--kid", "root")
	tk := run(tb, dir, nil, bs.tickettool, "mint", "--key", key, mintAt, "--no-expiry", "tools="+strings.Join(tools, ","))
	for _, c := range []string{
		"until=" + expiry.Format(time.RFC3339),
		"ops=" + strings.Join(ops, ","),
		"paths=" + prefix,
	} {
		tk = run(tb, dir, nil, bs.tickettool, "attenuate", mintAt, tk, c)
	}
	verifyKey := key
	if mode == "ed25519" {
		verifyKey += ".pub"
	}
	args := []string{"verify", "--key", verifyKey, "--store", "memory", "--now", t0.Format(time.RFC3339),
		"--tool", inScope.Tool, "--op", inScope.Op, "--path", inScope.Path, tk}
	if out := run(tb, dir, nil, bs.tickettool, args...); out != "allowed" {
		tb.Fatalf("tickettool verify printed %q, want allowed", out)
	}
	return args
}

// launches is the side that starts name with args n times, one after the
// other, waiting for each; a launch that does not exit 0 is an error. It
// records every launch's wall time.
func launches(label, name string, args ...string) side {
	times := new([]time.Duration)
	return side{name: label, times: times, run: func(n int) error {
		for range n {
			cmd := exec.Command(name, args...)
			start := time.Now()
			err := cmd.Run()
			*times = append(*times, time.Since(start))
			if err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
		}
		return nil
	}}
}
