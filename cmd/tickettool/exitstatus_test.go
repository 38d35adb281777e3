package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/chain"
)

// exitCase is one run of the CLI and the exit status the README's rule
// gives it: 0 success, 1 refused/invalid/tampered/expired, 2 usage error
// or input that cannot be read or decoded.
type exitCase struct {
	args  []string
	stdin string
	want  int
}

// TestExitStatus walks every command and subcommand through each class of
// outcome it has (success; refusal or invalid input where it decides
// something; usage errors: an unknown flag, a missing argument; input
// that cannot be read: a missing file, garbage) and checks the status,
// that stderr holds only "tickettool: error:"/"hint:" lines for a failure,
// and that no message stacks package prefixes or names a Go function.
func TestExitStatus(t *testing.T) {
	d := t.TempDir()
	t.Setenv("TICKETTOOL_STORE", "memory")
	p := func(name string) string { return filepath.Join(d, name) }
	write := func(name, data string, mode os.FileMode) string {
		if err := os.WriteFile(p(name), []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		return p(name)
	}
	cliOK(t, "keygen", "--alg", "ed25519", "--out", p("root.key"))
	cliOK(t, "keygen", "--alg", "ed25519", "--out", p("other.key"), "--kid", "root")
	cliOK(t, "keygen", "--alg", "hmac", "--out", p("rk.key"))
	cliOK(t, "keygen", "--alg", "hmac", "--out", p("rk2.key"))
	cliOK(t, "holder", "--alg", "eddsa", "--out", p("agent.jwk"))
	tk := cliOK(t, "mint", "--key", p("root.key"), "tools=read_file", "paths=src/", "calls=5", "until=2030-01-01T00:00:00Z")
	expired := cliOK(t, "mint", "--key", p("root.key"), "tools=read_file", "until=2020-01-01T00:00:00Z", "--now", "2019-12-31T00:00:00Z")
	hostsOnly := cliOK(t, "mint", "--key", p("root.key"), "tools=fetch", "hosts=api.example.org", "until=2030-01-01T00:00:00Z")
	proof := cliOK(t, "proof", "make", "--key", p("agent.jwk"), "--htm", "POST", "--htu", "mcp://fs/read_file")
	cliOK(t, "verify", "--key", p("root.key.pub"), "--tool", "read_file", "--path", "src/a.go",
		"--receipts", p("r.log"), "--receipt-key", p("rk.key"), tk)
	if code := run([]string{"verify", "--key", p("root.key.pub"), "--tool", "write_file", "--receipts", p("r.log"), "--receipt-key", p("rk.key"), tk},
		strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); code != 1 {
		t.Fatalf("a refusal for the log: exit %d", code)
	}
	log, _ := os.ReadFile(p("r.log"))
	cp := cliOK(t, "receipt", "checkpoint", "--key", p("rk.key"), p("r.log"))
	write("cp.txt", cp+"\n", 0o644)
	var first int // record 1 starts there
	for e, err := range chain.Scan(bytes.NewReader(log)) {
		if err != nil || e.Index == 1 {
			first = int(e.Offset)
			break
		}
	}
	// One byte that is no CBOR item between records 0 and 1: damage.
	write("damaged.log", string(log[:first])+"\x1f"+string(log[first:]), 0o600)
	write("copy.log", string(log), 0o600)
	garbage := write("garbage", "this is not what you think\n", 0o600)
	write("main.ticket", tk+"\n", 0o600) // the hook's ticket directory is d
	missing := p("missing")
	nodir := filepath.Join(missing, "x")

	key, pub, rk := p("root.key"), p("root.key.pub"), p("rk.key")
	cliOK(t, "keygen", "--alg", "ed25519", "--out", p("lead.key"))
	approvalTk := cliOK(t, "mint", "--key", key, "--approval", p("lead.key.pub"), "tools=post", "until=2030-01-01T00:00:00Z")
	dis := cliOK(t, "approve", "--key", p("lead.key"), "--yes", approvalTk)
	old := openTerminal
	openTerminal = func() (io.Reader, io.Writer, func(), error) { return nil, nil, nil, os.ErrNotExist }
	defer func() { openTerminal = old }()
	busyL, err := net.Listen("tcp", "127.0.0.1:0") // a port in use: the proxy cannot listen
	if err != nil {
		t.Fatal(err)
	}
	defer busyL.Close()
	busy := busyL.Addr().String()
	cases := []exitCase{
		// top level
		{args: nil, want: 2},
		{args: []string{"frobnicate"}, want: 2},
		{args: []string{"-h"}, want: 0},
		{args: []string{"help"}, want: 0},
		{args: []string{"help", "verify"}, want: 0},
		{args: []string{"help", "frobnicate"}, want: 2},
		{args: []string{"--version"}, want: 0},
		{args: []string{"--frobnicate"}, want: 2},

		// keygen
		{args: []string{"keygen", "--alg", "hmac", "--out", p("new.key")}, want: 0},
		{args: []string{"keygen", "--alg", "hmac", "--out", p("new.key")}, want: 1}, // exists: refused
		{args: []string{"keygen", "--alg", "rsa", "--out", p("x.key")}, want: 2},
		{args: []string{"keygen", "--alg", "hmac"}, want: 2},
		{args: []string{"keygen", "--nope"}, want: 2},
		{args: []string{"keygen", "--alg", "hmac", "--out", nodir}, want: 2},

		// holder
		{args: []string{"holder", "--alg", "es256", "--out", p("h.jwk")}, want: 0},
		{args: []string{"holder", "--alg", "es256", "--out", p("h.jwk")}, want: 1},
		{args: []string{"holder", "--alg", "rsa", "--out", p("h2.jwk")}, want: 2},
		{args: []string{"holder", "--alg", "es256"}, want: 2},
		{args: []string{"holder", "--nope"}, want: 2},
		{args: []string{"holder", "--alg", "es256", "--out", nodir}, want: 2},

		// mint
		{args: []string{"mint", "--key", key, "tools=a", "until=1h"}, want: 0},
		{args: []string{"mint", "--key", key, "frobs=a"}, want: 2},
		{args: []string{"mint", "tools=a"}, want: 2},
		{args: []string{"mint", "--nope"}, want: 2},
		{args: []string{"mint", "--key", missing, "tools=a"}, want: 2},
		{args: []string{"mint", "--key", garbage, "tools=a"}, want: 2},

		// attenuate
		{args: []string{"attenuate", tk, "calls=2"}, want: 0},
		{args: []string{"attenuate", "-", "calls=2"}, stdin: tk + "\n", want: 0},
		{args: []string{"attenuate", tk, "tools=write_file"}, want: 1}, // would widen
		{args: []string{"attenuate"}, want: 2},
		{args: []string{"attenuate", "--nope", tk}, want: 2},
		{args: []string{"attenuate", "tkt1_garbage", "calls=2"}, want: 2},
		{args: []string{"attenuate", "-", "calls=2"}, stdin: "garbage", want: 2},

		// inspect
		{args: []string{"inspect", tk}, want: 0},
		{args: []string{"inspect", "--discharge", dis, approvalTk}, want: 0},
		{args: []string{"inspect", "--discharge", "dis1_x", approvalTk}, want: 2},
		{args: []string{"approve", "--key", p("lead.key"), "--yes", approvalTk}, want: 0},
		{args: []string{"approve", "--key", p("lead.key"), "--yes", tk}, want: 1},
		{args: []string{"approve", "--key", p("lead.key"), approvalTk}, want: 2}, // no terminal
		{args: []string{"approve", "--key", p("lead.key"), "--until", "48h", "--yes", approvalTk}, want: 2},
		{args: []string{"approve", "--key", p("lead.key"), "--yes"}, want: 2},
		{args: []string{"approve", "--key", missing, "--yes", approvalTk}, want: 2},
		{args: []string{"approve", "--key", p("lead.key"), "--yes", "@" + garbage}, want: 2},
		{args: []string{"approve", "--nope"}, want: 2},
		{args: []string{"inspect", "--json", expired}, want: 0},
		{args: []string{"inspect"}, want: 2},
		{args: []string{"inspect", "--nope", tk}, want: 2},
		{args: []string{"inspect", "garbage"}, want: 2},

		// verify
		{args: []string{"verify", "--key", pub, tk}, want: 0},
		{args: []string{"verify", "--key", pub, "--tool", "read_file", "--path", "src/a.go", tk}, want: 0},
		{args: []string{"verify", "--key", pub, "--tool", "read_file", "--path", "etc/passwd", tk}, want: 1},
		{args: []string{"verify", "--key", pub, expired}, want: 1},
		{args: []string{"verify", "--key", p("other.key.pub"), tk}, want: 1},
		{args: []string{"verify", "--key", pub, "--receipts", p("copy.log"), "--receipt-key", p("rk2.key"), "--tool", "read_file", "--path", "src/a", tk}, want: 1},
		{args: []string{"verify", "--key", pub, "--receipts", garbage, "--receipt-key", rk, "--tool", "read_file", tk}, want: 2},
		{args: []string{"verify", "--key", pub}, want: 2},
		{args: []string{"verify", "--nope", "--key", pub, tk}, want: 2},
		{args: []string{"verify", tk}, want: 2},
		{args: []string{"verify", "--key", missing, tk}, want: 2},
		{args: []string{"verify", "--key", garbage, tk}, want: 2},
		{args: []string{"verify", "--key", pub, "garbage"}, want: 2},

		// proof
		{args: []string{"proof"}, want: 2},
		{args: []string{"proof", "frob"}, want: 2},
		{args: []string{"proof", "-h"}, want: 0},
		{args: []string{"proof", "make", "--key", p("agent.jwk"), "--htm", "GET", "--htu", "https://a/"}, want: 0},
		{args: []string{"proof", "make", "--key", p("agent.jwk"), "--htm", "GET"}, want: 2},
		{args: []string{"proof", "make", "--nope"}, want: 2},
		{args: []string{"proof", "make", "--key", missing, "--htm", "GET", "--htu", "https://a/"}, want: 2},
		{args: []string{"proof", "make", "--key", garbage, "--htm", "GET", "--htu", "https://a/"}, want: 2},
		{args: []string{"proof", "check", "--htm", "POST", "--htu", "mcp://fs/read_file", proof}, want: 0},
		{args: []string{"proof", "check", "--htm", "POST", "--htu", "mcp://fs/write_file", proof}, want: 1},
		{args: []string{"proof", "check", "--htm", "POST", "--htu", "mcp://fs/read_file", "garbage"}, want: 2},
		{args: []string{"proof", "check", "--htm", "POST", "--htu", "mcp://fs/read_file", "-"}, stdin: "a.b", want: 2},
		{args: []string{"proof", "check", "--htm", "POST", proof}, want: 2},
		{args: []string{"proof", "check", "--htm", "POST", "--htu", "mcp://fs/read_file"}, want: 2},
		{args: []string{"proof", "check", "--nope"}, want: 2},

		// mcp (its server: true, which exits at once with 0; false with 1)
		{args: []string{"mcp", "--ticket", tk, "--key", pub, "--", "true"}, want: 0},
		{args: []string{"mcp", "--ticket", tk, "--key", pub, "--", "false"}, want: 1},
		{args: []string{"mcp", "--ticket", expired, "--key", pub, "--", "true"}, want: 1},
		{args: []string{"mcp", "--ticket", tk, "--key", p("other.key.pub"), "--", "true"}, want: 1},
		{args: []string{"mcp", "--ticket", tk, "--key", pub, "--receipts", p("copy.log"), "--receipt-key", p("rk2.key"), "--", "true"}, want: 1},
		{args: []string{"mcp", "--ticket", tk, "--key", pub, "--receipts", garbage, "--receipt-key", rk, "--", "true"}, want: 2},
		{args: []string{"mcp", "--ticket", tk, "--key", pub}, want: 2},
		{args: []string{"mcp", "--ticket", tk, "--", "true"}, want: 2},
		{args: []string{"mcp", "--nope", "--", "true"}, want: 2},
		{args: []string{"mcp", "--ticket-file", missing, "--key", pub, "--", "true"}, want: 2},
		{args: []string{"mcp", "--ticket-file", garbage, "--key", pub, "--", "true"}, want: 2},
		{args: []string{"mcp", "--ticket", tk, "--key", missing, "--", "true"}, want: 2},

		// proxy (serving until a signal: cmd/tickettool's proxy tests)
		{args: []string{"proxy", "--listen", busy, "--upstream", "http://127.0.0.1:1", "--key", pub, "--public-url", "http://x.example"}, want: 1},
		{args: []string{"proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--key", pub, "--public-url", "ftp://x"}, want: 2},
		{args: []string{"proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--key", pub, "--routes", garbage}, want: 2},
		{args: []string{"proxy", "--listen", "127.0.0.1:0", "--upstream", "nope", "--key", pub}, want: 2},
		{args: []string{"proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1", "--key", missing}, want: 2},
		{args: []string{"proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1"}, want: 2},
		{args: []string{"proxy", "--nope"}, want: 2},

		// revoke and spent
		{args: []string{"spent", "--key", pub, tk}, want: 0},
		{args: []string{"spent", "--key", p("other.key.pub"), tk}, want: 1},
		{args: []string{"spent", "--key", pub}, want: 2},
		{args: []string{"spent", "--nope", tk}, want: 2},
		{args: []string{"spent", "--key", missing, tk}, want: 2},
		{args: []string{"spent", "--key", pub, "garbage"}, want: 2},
		{args: []string{"ops", "--key", pub, tk}, want: 0},
		{args: []string{"ops", "--key", p("other.key.pub"), tk}, want: 1},
		{args: []string{"ops", tk}, want: 2},
		{args: []string{"ops", "--key", pub}, want: 2},
		{args: []string{"ops", "--receipts", "x.log", "--key", pub, tk}, want: 2},
		{args: []string{"revoke", "--key", pub, tk}, want: 0},
		{args: []string{"revoke", "--key", p("other.key.pub"), tk}, want: 1},
		{args: []string{"revoke"}, want: 2},
		{args: []string{"revoke", "--nope", tk}, want: 2},
		{args: []string{"revoke", "--key", missing, tk}, want: 2},
		{args: []string{"revoke", "--key", pub, "garbage"}, want: 2},

		// receipt
		{args: []string{"receipt"}, want: 2},
		{args: []string{"receipt", "frob"}, want: 2},
		{args: []string{"receipt", "-h"}, want: 0},
		{args: []string{"receipt", "show", p("r.log")}, want: 0},
		{args: []string{"receipt", "show", "--json", "--refused", p("r.log")}, want: 0},
		{args: []string{"receipt", "show", p("damaged.log")}, want: 1},
		{args: []string{"receipt", "show", garbage}, want: 2},
		{args: []string{"receipt", "show", key}, want: 2},
		{args: []string{"receipt", "show", missing}, want: 2},
		{args: []string{"receipt", "show"}, want: 2},
		{args: []string{"receipt", "show", "--nope", p("r.log")}, want: 2},
		{args: []string{"receipt", "verify", "--key", rk, p("r.log")}, want: 0},
		{args: []string{"receipt", "verify", "--key", rk, "--checkpoint", p("cp.txt"), p("r.log")}, want: 0},
		{args: []string{"receipt", "verify", "--key", rk, p("damaged.log")}, want: 1},
		{args: []string{"receipt", "verify", "--key", p("rk2.key"), p("r.log")}, want: 1},
		{args: []string{"receipt", "verify", "--key", p("rk2.key"), "--checkpoint", p("cp.txt"), p("r.log")}, want: 1},
		{args: []string{"receipt", "verify", "--key", rk, garbage}, want: 2},
		{args: []string{"receipt", "verify", "--key", rk, missing}, want: 2},
		{args: []string{"receipt", "verify", "--key", missing, p("r.log")}, want: 2},
		{args: []string{"receipt", "verify", "--key", garbage, p("r.log")}, want: 2},
		{args: []string{"receipt", "verify", "--key", rk, "--checkpoint", missing, p("r.log")}, want: 2},
		{args: []string{"receipt", "verify", "--key", rk}, want: 2},
		{args: []string{"receipt", "verify", p("r.log")}, want: 2},
		{args: []string{"receipt", "verify", "--nope", p("r.log")}, want: 2},
		{args: []string{"receipt", "checkpoint", "--key", rk, p("r.log")}, want: 0},
		{args: []string{"receipt", "checkpoint", "--key", rk, p("damaged.log")}, want: 1},
		{args: []string{"receipt", "checkpoint", "--key", p("rk2.key"), p("r.log")}, want: 1},
		{args: []string{"receipt", "checkpoint", "--key", pub, p("r.log")}, want: 2},
		{args: []string{"receipt", "checkpoint", "--key", rk, garbage}, want: 2},
		{args: []string{"receipt", "checkpoint", "--key", rk, missing}, want: 2},
		{args: []string{"receipt", "checkpoint", "--key", rk}, want: 2},
		{args: []string{"receipt", "checkpoint", "--nope"}, want: 2},
		{args: []string{"receipt", "repair", "--key", rk, p("copy.log")}, want: 0},
		{args: []string{"receipt", "repair", "--key", rk, p("damaged.log")}, want: 1},
		{args: []string{"receipt", "repair", "--key", p("rk2.key"), p("copy.log")}, want: 1},
		{args: []string{"receipt", "repair", "--key", rk, garbage}, want: 2},
		{args: []string{"receipt", "repair", "--key", rk, missing}, want: 2},
		{args: []string{"receipt", "repair", "--key", rk}, want: 2},
		{args: []string{"receipt", "repair", "--nope"}, want: 2},
		{args: []string{"receipt", "report", "--key", rk, "--out", p("r.html"), p("r.log")}, want: 0},
		{args: []string{"receipt", "report", "--key", rk, "--checkpoint", p("cp.txt"), "--out", p("r.html"), p("r.log")}, want: 0},
		{args: []string{"receipt", "report", "--key", rk, "--out", p("d.html"), p("damaged.log")}, want: 1},
		{args: []string{"receipt", "report", "--key", p("rk2.key"), "--out", p("k.html"), p("r.log")}, want: 1},
		{args: []string{"receipt", "report", "--key", rk, "--out", p("g.html"), garbage}, want: 2},
		{args: []string{"receipt", "report", "--key", rk, missing}, want: 2},
		{args: []string{"receipt", "report", "--key", missing, p("r.log")}, want: 2},
		{args: []string{"receipt", "report", "--key", rk, "--checkpoint", missing, p("r.log")}, want: 2},
		{args: []string{"receipt", "report", "--key", rk}, want: 2},
		{args: []string{"receipt", "report", "--nope"}, want: 2},
		{args: []string{"receipt", "show", "--family", "zz", p("r.log")}, want: 2},
		{args: []string{"receipt", "show", "--until", "soon", p("r.log")}, want: 2},

		// request (its runs against a server are request.txtar): a
		// ticket its caveats keep from a URL sends nothing and refuses;
		// a closed port refuses too
		{args: []string{"request", "-h"}, want: 0},
		{args: []string{"request", "--ticket", hostsOnly, "https://elsewhere.example/x"}, want: 1},
		{args: []string{"request", "--ticket", tk, "http://127.0.0.1:1/x"}, want: 1},
		{args: []string{"request", "--ticket", missing, "http://127.0.0.1:1/x"}, want: 2},
		{args: []string{"request", "--ticket", tk}, want: 2},
		{args: []string{"request", "--ticket", tk, "-H", "DPoP: x", "http://127.0.0.1:1/x"}, want: 2},
		{args: []string{"request", "--nope"}, want: 2},

		// demo (its run is TestDemo), version, completion
		{args: []string{"demo", "-h"}, want: 0},
		{args: []string{"demo", "extra"}, want: 2},
		{args: []string{"demo", "--nope"}, want: 2},
		{args: []string{"version"}, want: 0},
		{args: []string{"version", "extra"}, want: 2},
		{args: []string{"version", "--nope"}, want: 2},
		{args: []string{"completion", "bash"}, want: 0},
		{args: []string{"completion", "tcsh"}, want: 2},
		{args: []string{"completion"}, want: 2},
		{args: []string{"completion", "--nope"}, want: 2},
		// hook: its decisions answer in the harness's own exit statuses
		// (hook_test.go); here, what comes before there is a harness.
		{args: []string{"hook", "-h"}, want: 0},
		{args: []string{"hook", "--key", pub}, want: 2},
		{args: []string{"hook", "--harness", "vscode", "--key", pub}, want: 2},
		{args: []string{"hook", "config", "--harness", "claude", "--ticket-dir", d, "--key", pub}, want: 0},
		{args: []string{"hook", "config", "--harness", "claude", "--key", pub}, want: 2},
		{args: []string{"hook", "config", "--harness", "vscode", "--ticket-dir", d, "--key", pub}, want: 2},
		{args: []string{"hook", "delegate", "--ticket-dir", d, "Explore", "tools=read_file", "calls=2"}, want: 0},
		{args: []string{"hook", "delegate", "--ticket-dir", d, "Explore", "tools=write_file"}, want: 1},
		{args: []string{"hook", "delegate", "--ticket-dir", d, "../Explore", "tools=read_file"}, want: 2},
		{args: []string{"hook", "delegate", "--ticket-dir", missing, "Explore", "tools=read_file"}, want: 2},
		{args: []string{"hook", "delegate", "--ticket-dir", d}, want: 2},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, strings.NewReader(c.stdin), &out, &errb)
		name := strings.ReplaceAll(strings.Join(c.args, " "), d+string(filepath.Separator), "")
		if code != c.want {
			t.Errorf("tickettool %.120s: exit %d, want %d\n%s", name, code, c.want, errb.String())
		}
		if len(c.args) > 0 {
			covered[c.args[0]] = true
			if len(c.args) > 1 {
				covered[c.args[0]+" "+c.args[1]] = true
			}
		}
		checkMessages(t, name, code, errb.String())
	}
	for _, c := range commands() {
		if !covered[c.name] {
			t.Errorf("command %s has no exit-status case", c.name)
		}
		for _, s := range c.subs {
			if !covered[c.name+" "+s] {
				t.Errorf("command %s %s has no exit-status case", c.name, s)
			}
		}
	}
}

var (
	// A package prefix: "chain: " at the start of the message or after
	// another ": ".
	pkgPrefix = regexp.MustCompile(`(^tickettool: error: |: )(caveat|chain|token|dpop|verify|guard|mcp|keyfile|wire|cbor|sqlitestore|redisstore|demo|dpophttp): `)
	// The os package's "open PATH: " after a message's own "read X: ".
	osPrefix = regexp.MustCompile(`: (open|stat|lstat|read|write|create|mkdir|chmod) [^ ]+: `)
	// A Go identifier a user cannot act on: a method call, a Go type, "run
	// Repair".
	goName = regexp.MustCompile(`[a-z]\.[A-Z][A-Za-z]+[(.]|Go (value|type|struct)|\b(run|call|use) [A-Z][a-z]+[A-Z]?[a-z]*\b|\b[a-z]+\.[a-z]+[A-Z][A-Za-z]*\b`)
)

// checkMessages checks one run's stderr: a failure prints "tickettool:
// error:" (or a stop notice) then hints, and no line stacks two prefixes
// or names Go code.
func checkMessages(t *testing.T, name string, code int, stderr string) {
	t.Helper()
	// A refusal verify prints on stdout leaves only hints on stderr.
	// approve tells what is approved before it asks.
	if i := strings.Index(stderr, "tickettool: "); strings.HasPrefix(stderr, "You are approving") && i > 0 {
		stderr = stderr[i:]
	}
	if code != 0 && stderr != "" && !strings.HasPrefix(stderr, "tickettool: error: ") && !strings.HasPrefix(stderr, "usage: ") &&
		!strings.HasPrefix(stderr, "tickettool: hint: every local user") && !(code == 1 && strings.HasPrefix(stderr, "tickettool: hint: ")) {
		t.Errorf("tickettool %.120s: stderr does not start with an error: %q", name, stderr)
	}
	for line := range strings.Lines(stderr) {
		if n := len(pkgPrefix.FindAllString(line, -1)); n > 1 || osPrefix.MatchString(line) {
			t.Errorf("tickettool %.120s: stacked prefixes: %q", name, line)
		}
		if strings.HasPrefix(line, "tickettool: error: ") {
			seen := map[string]bool{}
			for _, w := range strings.Fields(strings.NewReplacer(":", " ", ",", " ").Replace(line)) {
				if strings.HasPrefix(w, "/") && seen[w] {
					t.Errorf("tickettool %.120s: names %s twice: %q", name, w, line)
				}
				seen[w] = true
			}
		}
		if m := goName.FindString(line); m != "" {
			t.Errorf("tickettool %.120s: names Go code (%q): %q", name, m, line)
		}
	}
}
