package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

// TestApprovalToolBound: the approve command a refusal gives names the
// call's tool, so the discharge it makes for read_file {"path":X,…} does
// not also allow write_file with the same arguments (the args digest
// covers a call's content, not its tool). The discharge is made with
// exactly the caveats the refusal's command names.
func TestApprovalToolBound(t *testing.T) {
	s, _ := startApproval(t)
	args := map[string]any{"path": filepath.Join(s.dir, "x"), "content": "evil"}
	txt, isErr := s.call(t, "read_file", args)
	if !isErr {
		t.Fatal("not refused")
	}
	i := strings.Index(txt, "--args @")
	if i < 0 {
		t.Fatalf("no --args @FILE: %s", txt)
	}
	words := strings.Fields(txt[i+len("--args @"):])
	argsPath := words[0]
	b, err := os.ReadFile(argsPath)
	if err != nil {
		t.Fatal(err)
	}
	// The CAVEAT words of the command: after --args FILE and --out PATH,
	// before the ticket.
	cavs := []caveat.Caveat{untilC(t, 10*time.Minute), argsC(t, string(b)), mustCalls(t, 1)}
	var named []string
	for i := 1; i < len(words) && words[i] != s.p.cfg.ApproveTicket; i++ {
		if words[i] == "--out" {
			i++ // its PATH
			continue
		}
		named = append(named, words[i])
	}
	extra, err := caveat.ParseAll(named, t0)
	if err != nil {
		t.Fatalf("caveats of the command %q: %v", named, err)
	}
	dis := approve(t, s.p.state().ticket, append(cavs, extra...)...)
	if err := os.WriteFile(strings.TrimSuffix(argsPath, ".json")+DischargeSuffix, []byte(dis+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if txt, isErr := s.call(t, "write_file", args); !isErr || !strings.HasPrefix(txt, RefusalPrefix) {
		t.Fatalf("write_file allowed by the discharge approved for read_file: %s", txt)
	}
	if len(extra) != 1 || extra[0].Kind != caveat.Tools || len(extra[0].List) != 1 || extra[0].List[0] != "read_file" {
		t.Fatalf("the command's caveats are %q, want tools=read_file: %s", named, txt)
	}
	// The guard lets read_file through (the server then refuses the
	// content member its schema lacks).
	if txt, _ := s.call(t, "read_file", args); strings.HasPrefix(txt, RefusalPrefix) {
		t.Fatalf("read_file refused with its discharge: %s", txt)
	}
}
