package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinePattern holds the placeholder convention of TestREADME: what a
// shown line matches, and what it must not.
func TestLinePattern(t *testing.T) {
	for _, c := range []struct {
		shown, got string
		vary       []string
		ok         bool
	}{
		{"allowed", "allowed", nil, true},
		{"allowed", "refused", nil, false},
		{"allowed", "allowed and more", nil, false},
		{"tkt1_…", "tkt1_oQEBAgMEBQYH", nil, true},
		{"tkt1_…", "tkt2_oQEB", nil, false},
		{"a … b", "a  b", nil, true},
		// hex words: any hex of the same length, nothing else
		{"family 1c0e5d9a4b7f3e2a8c6d0b1f9e4a7c35", "family b8c864a791a9f7bf81b61432890414b5", nil, true},
		{"family 1c0e5d9a4b7f3e2a8c6d0b1f9e4a7c35", "family b8c864a791a9f7bf81b61432890414b5aa", nil, false},
		{"family 1c0e5d9a4b7f3e2a8c6d0b1f9e4a7c35", "family B8C864A791A9F7BF81B61432890414B5", nil, false},
		{"revoked 60c1c62d:8e33dc25 (x)", "revoked 0123abcd:deadbee1 (x)", nil, true},
		{"root+56e4782d+AS", "root+0a1b2c3d+AS", nil, true},
		{"deadbeefcafe", "0123456789ab", nil, false}, // no digit: literal
		{"ab12", "cd34", nil, false}, // shorter than 8: literal
		// times
		{"at 2026-06-01T10:00:00Z", "at 2031-12-24T23:59:59Z", nil, true},
		{"at 2026-06-01T10:00:00Z", "at tomorrow", nil, false},
		// vary: any text without spaces
		{"expires in 59m, at x", "expires in 58m, at x", []string{"59m"}, true},
		{"expires in 59m, at x", "expires in 1 hour, at x", []string{"59m"}, false},
		{"(code 7QK2M-XW4RA)", "(code IT5VF-JFOIW)", []string{"7QK2M-XW4RA"}, true},
		// regular expression syntax in the text is literal
		{"a.b (c)*", "axb (c)*", nil, false},
		{"a.b (c)*", "a.b (c)*", nil, true},
	} {
		re := linePattern(c.shown, c.vary)
		if got := re.MatchString(c.got); got != c.ok {
			t.Errorf("%q (vary %q) matching %q: %v, want %v (as %s)", c.shown, c.vary, c.got, got, c.ok, re)
		}
	}
}

// TestWantsFailure holds which shown outputs expect a nonzero exit.
func TestWantsFailure(t *testing.T) {
	for _, c := range []struct {
		want []string
		fail bool
	}{
		{nil, false},
		{[]string{"allowed"}, false},
		{[]string{"refused", "block 1 caveat paths: x"}, true},
		{[]string{"invalid"}, true},
		{[]string{"tickettool: error: no", "tickettool: hint: yes"}, true},
		{[]string{"tkt1_…", "tickettool: hint: only a hint"}, false},
		{[]string{"block 0 refused"}, false},
		{[]string{`{"hookSpecificOutput":{}}`, "tickettool: refused builtin/read (Read) x: block 0 caveat paths: …"}, true},
	} {
		if got := wantsFailure(c.want); got != c.fail {
			t.Errorf("%q: %v, want %v", c.want, got, c.fail)
		}
	}
}

// TestReadExamples holds how blocks, markers and console commands are read.
func TestReadExamples(t *testing.T) {
	md := strings.Join([]string{
		"# Title",
		"<!-- readme-test: vary 59m; needs fs-server -->",
		"```console",
		"$ tickettool inspect x \\",
		"    --now y",
		"expires in 59m",
		"$ true",
		"```",
		"## Next",
		"<!-- readme-test: skip (needs a network; really) -->",
		"",
		"```json",
		"{}",
		"```",
		"```go",
		"x := 1",
		"```",
	}, "\n")
	path := filepath.Join(t.TempDir(), "R.md")
	if err := os.WriteFile(path, []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	xs, err := readExamples(path, "R.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 3 {
		t.Fatalf("%d blocks, want 3", len(xs))
	}
	if x := xs[0]; x.lang != "console" || x.needs != "fs-server" || len(x.vary) != 1 || x.skip != "" || x.name() != "R.md:3 (Title)" {
		t.Errorf("block 0: %+v", x)
	}
	cmds, err := xs[0].commands()
	if err != nil || len(cmds) != 2 || cmds[0].text != "tickettool inspect x \\\n    --now y" || len(cmds[0].want) != 1 || cmds[1].line != 7 {
		t.Errorf("commands: %+v, %v", cmds, err)
	}
	if x := xs[1]; x.skip != "needs a network; really" || x.section != "Next" {
		t.Errorf("block 1: %+v", x)
	}
	if x := xs[2]; x.skip != "" || x.lang != "go" {
		t.Errorf("block 2 takes no marker from further up: %+v", x)
	}

	for _, bad := range []string{
		"<!-- readme-test: skip -->\n```sh\n```\n",
		"<!-- readme-test: skip() -->\n```sh\n```\n",
		"<!-- readme-test: run -->\n```sh\n```\n",
		"```sh\n",
	} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := readExamples(path, "R.md"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	x := &example{file: "R.md", line: 1, section: "s", body: []string{"output first", "$ true"}}
	if _, err := x.commands(); err == nil {
		t.Error("output before a command: no error")
	}
}
