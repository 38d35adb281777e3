package hook_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/hook"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// A Claude Code PreToolUse event decided against a ticket for /work/shop/:
// a read inside is allowed in silence, a read outside gets Claude Code's
// deny form and exit status 2.
func ExampleDecide() {
	root, _ := key.Generate(key.Ed25519, "root")
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cs, _ := caveat.ParseAll([]string{"tools=builtin/read", "paths=/work/shop/", "until=1h"}, now)
	ticket, _ := token.Mint(root, cs, nil)
	dir, _ := os.MkdirTemp("", "hook-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "agent.ticket"), []byte(ticket.String()), 0o600)

	keys, _ := token.NewKeyring(root.Verifying())
	g, _ := guard.New(guard.Config{Keys: keys}) // a memory store
	cfg := &hook.Config{Harness: hook.Claude, Guard: g, Tickets: hook.Tickets{File: filepath.Join(dir, "agent.ticket")},
		Now: func() time.Time { return now }}
	for _, path := range []string{"/work/shop/src/a.go", "/etc/passwd"} {
		event := `{"hook_event_name":"PreToolUse","cwd":"/work/shop","tool_name":"Read","tool_input":{"file_path":"` + path + `"},"tool_use_id":"toolu_1"}`
		a := hook.Decide(context.Background(), cfg, []byte(event))
		fmt.Printf("exit %d, stdout %q\n", a.Code, a.Stdout)
	}
	// Output:
	// exit 0, stdout ""
	// exit 2, stdout "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"tickettool: refused builtin/read (Read) /etc/passwd: block 0 caveat paths: /etc/passwd is not under /work/shop/\"}}\n"
}
