package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// completionScript returns `tickettool completion SHELL`, written to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"completion", shell}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("completion %s: exit %d: %s", shell, code, errb.String())
	}
	path := filepath.Join(t.TempDir(), "tickettool."+shell)
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bashComplete loads the bash script and completes line (the last word,
// possibly empty, is the one being completed) as bash would.
func bashComplete(t *testing.T, script, line string) []string {
	t.Helper()
	words := strings.Split(line, " ")
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c",
		`source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _tickettool; printf '%s\n' "${COMPREPLY[@]}"`,
		"bash", script)
	cmd.Args = append(cmd.Args, words...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// TestCompletionBash loads the bash script in a real bash and completes
// commands, subcommands, flags and fixed arguments.
func TestCompletionBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := completionScript(t, "bash")
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"tickettool mi", []string{"mint"}},
		{"tickettool re", []string{"receipt", "request", "revoke"}},
		{"tickettool ver", []string{"verify", "version"}},
		{"tickettool --v", []string{"--version"}},
		{"tickettool mint --k", []string{"--key"}},
		{"tickettool mint -k", []string{"--key"}},
		{"tickettool receipt ", []string{"checkpoint", "repair", "report", "show", "verify", "--help"}},
		{"tickettool receipt verify --ch", []string{"--checkpoint"}},
		{"tickettool proof make --htm POST --ht", []string{"--htm", "--htu"}},
		{"tickettool verify --key root.key --require-", []string{"--require-expiry", "--require-holder"}},
		{"tickettool completion ", []string{"bash", "fish", "zsh", "--help"}},
		{"tickettool help rec", []string{"receipt"}},
		{"tickettool keygen --alg hmac --o", []string{"--out"}},
		{"tickettool app", []string{"approve"}},
		{"tickettool approve --", []string{"--args", "--block", "--help", "--key", "--now", "--once", "--out", "--until", "--with", "--yes"}},
		{"tickettool mint --appr", []string{"--approval", "--approval-location", "--approvals-needed"}},
		{"tickettool verify --disc", []string{"--discharge"}},
		{"tickettool mcp --disc", []string{"--discharge-dir"}},
		{"tickettool ho", []string{"holder", "hook"}},
		{"tickettool hook con", []string{"config"}},
		{"tickettool hook --har", []string{"--harness"}},
		{"tickettool hook --ticket-", []string{"--ticket-dir", "--ticket-file"}},
		{"tickettool hook delegate --t", []string{"--ticket-dir"}},
		{"tickettool hook config --ti", []string{"--ticket-dir", "--ticket-file", "--timeout"}},
		// After "--", the server's words: file names, never our flags.
		{"tickettool mcp --ticket-file t -- server --k", nil},
		{"tickettool mcp -- --dis", nil},
	} {
		got := bashComplete(t, script, tc.line)
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q completes to %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestCompletionMatchesHelp checks the bash completion of every command's
// flags against the flags its -h lists, so a flag added to a command can
// never be missing from completion.
func TestCompletionMatchesHelp(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := completionScript(t, "bash")
	flagLine := regexp.MustCompile(`^  -([A-Za-z][a-z0-9-]*)`)
	for _, c := range commands() {
		paths := [][]string{{c.name}}
		for _, s := range c.subs {
			paths = append(paths, []string{c.name, s})
		}
		if len(c.subs) > 0 {
			paths = paths[1:]
		}
		for _, p := range paths {
			var out, errb bytes.Buffer
			if code := run(append(slices.Clone(p), "-h"), strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("%s -h: exit %d: %s", p, code, errb.String())
			}
			want := []string{"--help"}
			_, flags, _ := strings.Cut(out.String(), "\nFlags:\n")
			for line := range strings.Lines(flags) {
				if m := flagLine.FindStringSubmatch(line); m != nil {
					want = append(want, "--"+m[1])
				}
			}
			got := bashComplete(t, script, "tickettool "+strings.Join(p, " ")+" --")
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("tickettool %s --: completes to %q, -h lists %q", strings.Join(p, " "), got, want)
			}
		}
	}
}

// TestCompletionZshFish syntax-checks the zsh and fish scripts where those
// shells are installed, drives the fish one, and checks their content.
func TestCompletionZshFish(t *testing.T) {
	zsh := completionScript(t, "zsh")
	fish := completionScript(t, "fish")
	for path, want := range map[string][]string{
		zsh:  {"#compdef tickettool", "compdef _tickettool tickettool", `"receipt verify") cands=(--checkpoint --help --json --key)`},
		fish: {`complete -c tickettool -n 'test (__tickettool_path) = \'receipt verify\'' -l checkpoint -r -F`},
	} {
		b, _ := os.ReadFile(path)
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q", filepath.Base(path), w)
			}
		}
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		if out, err := exec.Command("zsh", "-n", zsh).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: %v\n%s", err, out)
		}
		// compadd and compdef stubbed: the candidates _tickettool offers.
		out, err := exec.Command("zsh", "-f", "-c", `compdef(){}; compadd(){ [[ $1 == -a ]] && print -r -- ${(P)2}; }; _files(){}
source "$1"; words=(tickettool receipt verify --); CURRENT=4; _tickettool`, "zsh", zsh).CombinedOutput()
		if err != nil || strings.Join(strings.Fields(string(out)), " ") != "--checkpoint --help --json --key" {
			t.Errorf("zsh: receipt verify -- offers %q (%v)", out, err)
		}
		// After "--", the server's words: files only.
		out, err = exec.Command("zsh", "-f", "-c", `compdef(){}; compadd(){ [[ $1 == -a ]] && print -r -- ${(P)2}; }; _files(){ print FILES; }
source "$1"; words=(tickettool mcp -- server --d); CURRENT=5; _tickettool`, "zsh", zsh).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "FILES" {
			t.Errorf("zsh: mcp -- server --d offers %q (%v)", out, err)
		}
	}
	if _, err := exec.LookPath("fish"); err == nil {
		if out, err := exec.Command("fish", "-n", fish).CombinedOutput(); err != nil {
			t.Errorf("fish -n: %v\n%s", err, out)
		}
		for line, want := range map[string]string{
			"tickettool mi":                "mint",
			"tickettool receipt verify --": "--checkpoint --help --json --key",
			"tickettool proof ":            "check make",
			"tickettool mcp -- --dis":      "",
		} {
			cmd := exec.Command("fish", "--no-config", "-c", `source $argv[1]; complete -C$argv[2]`, fish, line)
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			var got []string
			for l := range strings.Lines(string(out)) {
				got = append(got, strings.Fields(l)[0])
			}
			slices.Sort(got)
			if err != nil || strings.Join(got, " ") != want {
				t.Errorf("fish: %q completes to %q (%v), want %q", line, got, err, want)
			}
		}
	}
}

// TestCompletionUsage: an unknown or missing shell is a usage error.
func TestCompletionUsage(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != exitUsage || out.Len() > 0 {
			t.Errorf("%q: exit %d, stdout %q, want 2 and nothing", args, code, out.String())
		}
	}
}
