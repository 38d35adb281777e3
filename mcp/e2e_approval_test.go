//go:build unix

package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EApproval is the approval story against the real filesystem
// server: a write_file to a ticket with an approval is refused
// pending approval, and the refusal holds the command to run; that exact
// command (plus --yes: no terminal here) makes a one-shot discharge for
// the call's arguments into the discharge directory; the same call is then
// allowed once, without a restart, and refused the second time. Needs
// verify's step 6a and the guard's discharge budgets.
func TestE2EApproval(t *testing.T) {
	e := e2eFromEnv(t)
	e.tt(t, "keygen", "--alg", "ed25519", "--out", "lead.key", "--kid", "lead")
	ticket := e.mint(t, "--approval", "lead.key.pub", "tools=write_file,read_text_file", "paths="+e.allowed+"/", "until=10m")
	dir := e2eRealDir(t)
	s := e.start(t, ticket, nil, "--discharge-dir", dir)
	defer s.close(t)
	f := filepath.Join(e.allowed, "post.txt")
	args := map[string]any{"path": f, "content": "Q3 prices up 3%"}

	txt, isErr := s.call(t, "write_file", args, "approval")
	const run = "ask them to check the code and run: "
	i := strings.Index(txt, run)
	if !isErr || i < 0 || !strings.Contains(txt, "approval needed from lead (code ") || !strings.Contains(txt, "--once --args @"+dir+"/") {
		t.Fatalf("first call: isError %v: %s", isErr, txt)
	}
	e.absent(t, f)

	// The person runs the command the agent was given, in a shell.
	line := strings.Replace(txt[i+len(run):], "tickettool approve ", "tickettool approve --yes ", 1)
	sh := exec.Command("sh", "-c", line)
	sh.Dir = e.keys
	sh.Env = append(os.Environ(), "PATH="+filepath.Dir(e.bin)+":"+os.Getenv("PATH"))
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}

	s.ok(t, "write_file", args)
	e.holds(t, f, "Q3 prices up 3%")
	txt, isErr = s.call(t, "write_file", args, "calls")
	if !isErr {
		t.Fatalf("second call with a one-shot approval: %s", txt)
	}
}
