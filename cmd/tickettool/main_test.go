package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tickettool": func() {
			useTestTerminal()
			useTestStoreWait()
			os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"fakemcp": fakeMCP,
	})
}

// fakeMCP is the smallest MCP server the mcp tests need, on stdio: it
// answers tools/call NAME with one text block "ran NAME" (for NAME env:
// "TICKETTOOL_TICKET=" and the value it inherited; for NAME count: "ran
// count N", N the calls of count so far, counted in fakemcp.calls in its
// working directory across restarts), and every other
// request with an empty result. It creates fakemcp.started in its working
// directory when it starts, holding its process id, so a test can tell
// that it never did (or whether it still runs).
func fakeMCP() {
	os.WriteFile("fakemcp.started", []byte(strconv.Itoa(os.Getpid())), 0o600)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || m.Method == "" {
			continue
		}
		result := map[string]any{}
		if m.Method == "tools/call" {
			text := "ran " + m.Params.Name
			switch m.Params.Name {
			case "env":
				text = ticketEnv + "=" + os.Getenv(ticketEnv)
			case "count":
				f, _ := os.OpenFile("fakemcp.calls", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
				f.Write([]byte("count\n"))
				f.Close()
				b, _ := os.ReadFile("fakemcp.calls")
				text = "ran count " + strconv.Itoa(bytes.Count(b, []byte("\n")))
			}
			result["content"] = []any{map[string]string{"type": "text", "text": text}}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		os.Stdout.Write(append(b, '\n'))
	}
}

// testTerminalEnv names the terminal approve asks on in scripts: "none"
// for no terminal, else a file holding the answer (the question goes to
// standard error). Only the test binary reads it.
const testTerminalEnv = "TICKETTOOL_TEST_TERMINAL"

func useTestTerminal() {
	v, ok := os.LookupEnv(testTerminalEnv)
	if !ok {
		return
	}
	openTerminal = func() (io.Reader, io.Writer, func(), error) {
		if v == "none" {
			return nil, nil, nil, errors.New("no terminal")
		}
		f, err := os.Open(v)
		if err != nil {
			return nil, nil, nil, err
		}
		return f, os.Stderr, func() { f.Close() }, nil
	}
}

// TestScripts runs testdata/script/*.txtar. Helper commands:
//
//	status N PROG [ARGS...]   run PROG (like exec) and require exit status N
//	envfile VAR FILE          set $VAR to FILE's content without its trailing newline
//	extract REGEXP FILE       write group 1 of every stdout line matching REGEXP to FILE
//	flipbyte FILE OFFSET      flip the low bit of the byte at OFFSET (negative: from the end)
//	truncate FILE N           cut FILE to N bytes (negative: drop -N bytes)
//	tamperticket FILE NEEDLE  change exactly one character of the ticket text in FILE so
//	                          that one byte of NEEDLE in its CBOR flips its low bit
//	perm FILE MODE            require FILE's permission bits to be MODE (octal)
//	charge STORE KEY FILE [COST]  admit one call of the ticket in FILE in STORE (a
//	                          --store LOCATION): ! charge expects a refusal
//	lockstore FILE            hold the write lock of the SQLite store in FILE until
//	                          the script ends
//	muteserver VAR            listen on a loopback port that accepts connections and
//	                          never answers, until the script ends; $VAR is HOST:PORT
//	dpopserver VAR            serve a tiny DPoP resource server on a loopback port until
//	                          the script ends; $VAR is HOST:PORT (request_test.go)
//
// Condition [redis]: TICKETTOOL_REDIS_ADDR names a real Redis server
// (HOST:PORT); under CI=true the test fails without one. Condition [root]:
// the test runs as root (and can chown a file to another user).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			// Under -race every exec'd tickettool would sleep 1 s at exit
			// (the race runtime's atexit_sleep_ms default).
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			// The default store lies under HOME, which testscript sets to
			// /no-home (creatable by root): give each script its own.
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/.state")
			env.Setenv(redisAddrEnv, os.Getenv(redisAddrEnv))
			// approve never asks a real terminal in a test (see
			// useTestTerminal).
			env.Setenv(testTerminalEnv, "none")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "redis" {
				return redisCondition()
			}
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status":       cmdStatus,
			"envfile":      cmdEnvfile,
			"extract":      cmdExtract,
			"flipbyte":     cmdFlipbyte,
			"truncate":     cmdTruncate,
			"tamperticket": cmdTamperTicket,
			"perm":         cmdPerm,
			"charge":       cmdCharge,
			"lockstore":    cmdLockStore,
			"muteserver":   cmdMuteServer,
			"dpopserver":   cmdDPoPServer,
			"upstream":     proxyCmds["upstream"],
			"freeport":     proxyCmds["freeport"],
			"httpreq":      proxyCmds["httpreq"],
		},
	})
}

func noNeg(ts *testscript.TestScript, neg bool, name string) {
	if neg {
		ts.Fatalf("%s does not support !", name)
	}
}

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "status")
	if len(args) < 2 {
		ts.Fatalf("usage: status N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s: exit status %d, want %d", args[1], got, want)
	}
}

func cmdEnvfile(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "envfile")
	if len(args) != 2 {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	ts.Setenv(args[0], strings.TrimSuffix(ts.ReadFile(args[1]), "\n"))
}

func cmdExtract(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "extract")
	if len(args) != 2 {
		ts.Fatalf("usage: extract REGEXP FILE")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	var b strings.Builder
	for line := range strings.Lines(ts.ReadFile("stdout")) {
		if m := re.FindStringSubmatch(strings.TrimSuffix(line, "\n")); len(m) > 1 {
			b.WriteString(m[1] + "\n")
		}
	}
	if b.Len() == 0 {
		ts.Fatalf("extract: no line of stdout matches %s", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

func offsetArg(ts *testscript.TestScript, s string, size int) int {
	n, err := strconv.Atoi(s)
	ts.Check(err)
	if n < 0 {
		n += size
	}
	if n < 0 || n > size {
		ts.Fatalf("offset %s out of range for %d bytes", s, size)
	}
	return n
}

func cmdFlipbyte(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "flipbyte")
	if len(args) != 2 {
		ts.Fatalf("usage: flipbyte FILE OFFSET")
	}
	path := ts.MkAbs(args[0])
	b, err := os.ReadFile(path)
	ts.Check(err)
	i := offsetArg(ts, args[1], len(b)-1)
	b[i] ^= 1
	fi, err := os.Stat(path)
	ts.Check(err)
	ts.Check(os.WriteFile(path, b, fi.Mode().Perm()))
}

func cmdTruncate(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "truncate")
	if len(args) != 2 {
		ts.Fatalf("usage: truncate FILE N")
	}
	path := ts.MkAbs(args[0])
	fi, err := os.Stat(path)
	ts.Check(err)
	ts.Check(os.Truncate(path, int64(offsetArg(ts, args[1], int(fi.Size())))))
}

func cmdTamperTicket(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "tamperticket")
	if len(args) != 2 {
		ts.Fatalf("usage: tamperticket FILE NEEDLE")
	}
	path := ts.MkAbs(args[0])
	text := strings.TrimSuffix(ts.ReadFile(args[0]), "\n")
	out, err := tamperTicket(text, args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(path, []byte(out+"\n"), 0o644))
}

// tamperTicket changes one character of a ticket's text so that the low
// bit of one byte of needle, inside the decoded CBOR, flips: the byte at
// position p with p%3 == 2 is encoded alone by the low 6 bits of base64
// character 4*(p/3)+3.
func tamperTicket(text, needle string) (string, error) {
	const prefix = "tkt1_"
	body, ok := strings.CutPrefix(text, prefix)
	if !ok {
		return "", fmt.Errorf("not a ticket")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", err
	}
	i := bytes.Index(raw, []byte(needle))
	if i < 0 {
		return "", fmt.Errorf("%q not in the ticket", needle)
	}
	for p := i; p < i+len(needle); p++ {
		if p%3 != 2 {
			continue
		}
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		c := 4*(p/3) + 3
		v := strings.IndexByte(alphabet, body[c])
		out := []byte(body)
		out[c] = alphabet[v^1]
		return prefix + string(out), nil
	}
	return "", fmt.Errorf("needle %q too short", needle)
}

func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "perm")
	if len(args) != 2 {
		ts.Fatalf("usage: perm FILE MODE")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	fi, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if got := fi.Mode().Perm(); uint64(got) != want {
		ts.Fatalf("%s has mode %04o, want %04o", args[0], got, want)
	}
}

// TestDemo runs the demo in-process (under -race in CI). The demo works in
// its temporary directory only and leaves one file, its report page, in
// $TMPDIR: with HOME an empty directory (and no store named by the
// environment, so the default store lies under HOME) nothing may appear
// under HOME.
func TestDemo(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(envStore, "")
	t.Setenv(envStateHome, "")
	var out, errb bytes.Buffer
	if code := run([]string{"demo"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("demo: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"allowed\n",
		"block 0 caveat paths: src/discount-legacy/rates.go is not under src/discount/",
		"chain: broken at record 5",
		"log is shorter than its checkpoint",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	left, _ := os.ReadDir(tmp)
	if len(left) != 1 || !strings.HasPrefix(left[0].Name(), "tickettool-demo-report-") {
		t.Fatalf("demo left %v in TMPDIR, want its report page only", left)
	}
	page := filepath.Join(tmp, left[0].Name())
	if !strings.Contains(out.String(), "Open it in a browser: "+page+"\n") {
		t.Errorf("demo does not print its report's path %s", page)
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.Contains(b, []byte(`id="verdict" data-ok="true"`)) {
		t.Errorf("demo's report %s does not show a verified log (%v)", page, err)
	}
	if left, _ := os.ReadDir(home); len(left) > 0 {
		t.Errorf("demo wrote %s under HOME", left[0].Name())
	}
}

// TestNoPanic feeds odd arguments to every command in-process: each must
// end with a status, never a panic.
func TestNoPanic(t *testing.T) {
	odd := [][]string{
		{}, {""}, {"-h"}, {"help"}, {"help", "mint"}, {"nope"},
		{"keygen"}, {"keygen", "--alg", "rsa", "--out", "x"}, {"holder", "--alg", "x"},
		{"mint"}, {"mint", "--key", "/nonexistent"}, {"attenuate"}, {"attenuate", "-"},
		{"attenuate", "tkt1_", "tools=x"}, {"inspect"}, {"inspect", "tkt1_AAAA"}, {"inspect", "-", "-"},
		{"inspect", "tkt1_oQEB"}, {"verify", "--key", "/nonexistent", "x"}, {"verify", "-"},
		{"verify", "--dpop", "x", "t"}, {"proof"}, {"proof", "make"}, {"proof", "check", "x"},
		{"proof", "check", "--htm", "GET", "--htu", "https://a/", "not.a.jws"},
		{"receipt"}, {"receipt", "show"}, {"receipt", "show", "/nonexistent"},
		{"receipt", "verify", "--key", "/nonexistent", "x"}, {"receipt", "checkpoint"},
		{"demo", "extra"}, {"verify", "--now", "99999999999999999999", "x"},
		{"mint", "--unknown"}, {"proof", "nope"}, {"receipt", "nope"},
		{"mcp"}, {"mcp", "--", "true"}, {"mcp", "--ticket-file", "/nonexistent", "--key", "/nonexistent", "--", "true"},
		{"mcp", "--ticket", "tkt1_AAAA", "--ticket-file", "x", "--", "true"}, {"mcp", "--modes", "x", "--skew", "-1s"},
		{"verify", "--max-lifetime", "x", "t"}, {"verify", "--modes", ",", "--key", "/nonexistent", "t"},
	}
	for _, args := range odd {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader("garbage\n"), &out, &errb)
		if code < 0 || code > 2 {
			t.Errorf("%q: exit %d", args, code)
		}
		if code != 0 && !strings.HasPrefix(errb.String(), "tickettool: error: ") && errb.Len() > 0 && !strings.HasPrefix(errb.String(), "usage:") {
			t.Errorf("%q: stderr %q", args, errb.String())
		}
	}
}
