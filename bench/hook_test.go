package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// groupHook is the table of the coding-agent hook's pairs.
const groupHook = "Coding-agent hook: one process per tool call"

// hookPairs measure tickettool hook as a harness runs it, once per tool
// call: one process deciding an allowed Claude Code Read ÷ tickettool
// version (the launch alone). The ticket is Ed25519 (a harness holds only
// the public key); the store is the default SQLite file, whose admission
// is durable (synced) before the hook answers; for what the process costs
// without it, the memory store; and, with TICKETTOOL_REDIS_ADDR set, a
// Redis server, a shared store that no call has to open.
func hookPairs(tb testing.TB, bs *binaries) []pair {
	dir := filepath.Join(bs.dir, "hook")
	for _, d := range []string{"agent", "proj/src"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	key := filepath.Join(dir, "root.key")
	run(tb, dir, nil, bs.static, "keygen", "--alg", "ed25519", "--out", key, "--kid", "root")
	tk := run(tb, dir, nil, bs.static, "mint", "--key", key, "tools=builtin/read,builtin/write",
		"paths="+filepath.Join(dir, "proj")+"/", "until=24h")
	writeFile(tb, filepath.Join(dir, "agent", "main.ticket"), tk+"\n")
	event := fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"src/a.go"},"tool_use_id":"toolu_1"}`,
		filepath.Join(dir, "proj"))
	version := launches("tickettool version (static)", bs.static, "version")
	var ps []pair
	type store struct{ name, location string }
	stores := []store{{"SQLite store", filepath.Join(dir, "store.db")}, {"memory store", "memory"}}
	// A Redis server is a store that is already open: what a hook pays
	// for a shared store when no file is opened and checkpointed per call.
	if addr := os.Getenv("TICKETTOOL_REDIS_ADDR"); addr != "" {
		stores = append(stores, store{"Redis store on loopback", "redis://" + addr + "/15"})
	}
	for _, s := range stores {
		args := []string{"hook", "--harness", "claude", "--ticket-dir", filepath.Join(dir, "agent"), "--key", key + ".pub", "--store", s.location}
		name := s.name
		hook := hookLaunches("tickettool hook ("+name+", static)", dir, event, bs.static, args...)
		if err := hook.run(1); err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, pair{group: groupHook, name: fmt.Sprintf("`tickettool hook` deciding an allowed call (Ed25519, %s) ÷ `tickettool version`", name),
			a: version, b: hook, wall: true, batch: processBatch})
	}
	return ps
}

// hookLaunches is launches with the event on standard input; a launch
// that does not allow the call (exit 0, nothing on standard output) is an
// error.
func hookLaunches(label, dir, event, name string, args ...string) side {
	times := new([]time.Duration)
	return side{name: label, times: times, run: func(n int) error {
		for range n {
			cmd := exec.Command(name, args...)
			cmd.Dir = dir
			cmd.Stdin = bytes.NewReader([]byte(event))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			start := time.Now()
			err := cmd.Run()
			*times = append(*times, time.Since(start))
			if err != nil || out.Len() > 0 {
				return fmt.Errorf("%s: %v %s%s", label, err, out.String(), errb.String())
			}
		}
		return nil
	}}
}
