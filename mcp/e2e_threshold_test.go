//go:build unix

package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestE2EThresholdApproval is a two-of-three approval against the real
// filesystem server: the refusal says how many approvals the call has and
// from whom it waits, with one command per approver whose discharge lands
// beside the call's record in the discharge directory; after alice's
// approval the call is still refused, naming her; bob's command shows
// her approval (approve --with) and, run, makes the call allowed; a
// changed call is a new question with a record of its own.
func TestE2EThresholdApproval(t *testing.T) {
	e := e2eFromEnv(t)
	for _, id := range []string{"alice", "bob", "carol"} {
		e.tt(t, "keygen", "--alg", "ed25519", "--out", id+".key", "--kid", id)
	}
	ticket := e.mint(t, "--approval", "alice.key.pub", "--approval", "bob.key.pub", "--approval", "carol.key.pub",
		"--approvals-needed", "2", "tools=write_file,read_text_file", "paths="+e.allowed+"/", "until=10m")
	dir := e2eRealDir(t)
	s := e.start(t, ticket, nil, "--discharge-dir", dir)
	defer s.close(t)
	f := filepath.Join(e.allowed, "prices.txt")
	args := map[string]any{"path": f, "content": "Q3 prices up 3%"}

	txt, isErr := s.call(t, "write_file", args, "approval")
	if !isErr || !strings.Contains(txt, "approvals required: 2 of 3: waiting for two of alice, bob, carol (code ") {
		t.Fatalf("first call: isError %v: %s", isErr, txt)
	}
	run := func(id, txt, wantStderr string) {
		t.Helper()
		m := regexp.MustCompile(id + ` runs: (tickettool approve [^;]*)`).FindStringSubmatch(txt)
		if m == nil {
			t.Fatalf("no command for %s in: %s", id, txt)
		}
		line := strings.Replace(m[1], "tickettool approve ", "tickettool approve --yes ", 1)
		sh := exec.Command("sh", "-c", line)
		sh.Dir = e.keys
		sh.Env = append(os.Environ(), "PATH="+filepath.Dir(e.bin)+":"+os.Getenv("PATH"))
		out, err := sh.CombinedOutput()
		if err != nil || !strings.Contains(string(out), wantStderr) {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	run("alice", txt, "2 of 3 needed; approved by none yet; with yours 1: still waiting for 1 more of bob, carol")
	e.absent(t, f)

	txt, isErr = s.call(t, "write_file", args, "approval")
	if !isErr || !strings.Contains(txt, "approvals required: 2 of 3: approved by alice; waiting for one of bob, carol (code ") ||
		strings.Contains(txt, "alice runs:") {
		t.Fatalf("after alice: isError %v: %s", isErr, txt)
	}
	run("bob", txt, "2 of 3 needed; approved by alice; with yours 2: enough")
	s.ok(t, "write_file", args)
	e.holds(t, f, "Q3 prices up 3%")

	// One record per call: the first call's arguments and the two
	// discharges beside them; a changed call gets a record of its own.
	records := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		return m
	}
	if r := records(); len(r) != 1 {
		t.Fatalf("records %v", r)
	}
	if d, _ := filepath.Glob(filepath.Join(dir, strings.TrimSuffix(filepath.Base(records()[0]), ".json")+"-a*.dis")); len(d) != 2 {
		t.Fatalf("discharges beside the record: %v", d)
	}
	changed := map[string]any{"path": f, "content": "Q3 prices up 30%"}
	txt, isErr = s.call(t, "write_file", changed, "approval")
	if !isErr || !strings.Contains(txt, "waiting for two of alice, bob, carol") {
		t.Fatalf("changed call: isError %v: %s", isErr, txt)
	}
	if r := records(); len(r) != 2 {
		t.Fatalf("records after a changed call %v", r)
	}
}
