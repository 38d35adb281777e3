package hook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// env is a project directory, a root key, a ticket directory and a guard
// on a memory store.
type env struct {
	t          testing.TB
	dir, proj  string
	root       *key.Signing
	cfg        *Config
	ticketDir  string
	mainTicket *token.Ticket
}

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func newEnv(t testing.TB, caveats ...string) *env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, dir: dir, proj: filepath.Join(dir, "proj"), ticketDir: filepath.Join(dir, "agent")}
	for _, d := range []string{e.proj + "/src", e.ticketDir, dir + "/outside"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(e.proj+"/src/a.go", []byte("package a\n"), 0o600)
	os.WriteFile(dir+"/outside/secret", []byte("secret\n"), 0o600)
	e.root, err = key.Generate(key.Ed25519, "root")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(e.root.Verifying())
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.Config{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range caveats {
		caveats[i] = strings.ReplaceAll(c, "$PROJ", e.proj)
	}
	e.mainTicket = e.mint(caveats...)
	e.write("main.ticket", e.mainTicket)
	e.cfg = &Config{Harness: Claude, Guard: g, Tickets: Tickets{Dir: e.ticketDir},
		Now: func() time.Time { return testNow }}
	return e
}

func (e *env) mint(caveats ...string) *token.Ticket {
	e.t.Helper()
	cs, err := caveat.ParseAll(append(caveats, "until=2099-01-01T00:00:00Z"), testNow)
	if err != nil {
		e.t.Fatal(err)
	}
	t, err := token.Mint(e.root, cs, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return t
}

func (e *env) write(name string, t *token.Ticket) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.ticketDir, name), []byte(t.String()+"\n"), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// claude returns a Claude Code PreToolUse event in the project.
func (e *env) claude(tool, input string, extra ...string) string {
	x := ""
	for i := 0; i+1 < len(extra); i += 2 {
		x += fmt.Sprintf(",%q:%q", extra[i], extra[i+1])
	}
	return fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":%q,"tool_input":%s,"tool_use_id":"toolu_1"%s}`,
		e.proj, tool, strings.ReplaceAll(input, "$PROJ", e.proj), x)
}

// decide runs the Claude Code hook on an event; it reports whether the
// call was allowed and the reason of a refusal.
func (e *env) decide(event string) (bool, string) {
	e.t.Helper()
	a := Decide(context.Background(), e.cfg, []byte(event))
	switch {
	case a.Code == 0 && len(a.Stdout) == 0 && len(a.Stderr) == 0:
		return true, ""
	case a.Code == 2 && strings.Contains(string(a.Stdout), `"permissionDecision":"deny"`):
		return false, string(a.Stderr)
	}
	e.t.Fatalf("answer neither allows nor denies: %+v", a)
	return false, ""
}
