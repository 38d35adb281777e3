package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestApprovalHints: a refusal of step 6a at a block with an approval
// caveat gets one hint naming the approver, the code and the approve
// command, quoted for a shell; other refusals get none.
func TestApprovalHints(t *testing.T) {
	dir := t.TempDir()
	root, lead := filepath.Join(dir, "root.key"), filepath.Join(dir, "lead.key")
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", root, "--kid", "root")
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", lead, "--kid", "lead")
	text := tt(t, 0, "mint", "--key", root, "--approval", lead+".pub", "--approval-location", "https://chat/lead", "tools=post", "until=1h")
	tk, err := token.Parse(strings.TrimSpace(text))
	if err != nil {
		t.Fatal(err)
	}
	bind, _ := tk.Binding(0)
	code := token.BindingCode(bind)
	rs := []verify.Refusal{
		{Check: verify.CheckCaveat, Block: 0, Reason: "x"},
		{Check: verify.CheckApproval, Block: -1, Reason: "discharge 0 matches no approval of this ticket"},
		{Check: verify.CheckApproval, Block: 0, Reason: "approval required from lead (code " + code + ")"},
		{Check: verify.CheckApproval, Block: 0, Reason: "again"},
	}
	got := approvalHints(tk, rs, nil, approveCmd{ticket: "@t.txt", tool: "post", args: `{"text":"it's"}`})
	want := "block 0 needs an approval from lead (key "
	if len(got) != 1 || !strings.HasPrefix(got[0], want) ||
		!strings.HasSuffix(got[0], " at https://chat/lead: they check the code "+code+
			` and run: tickettool approve --key lead.key --once --args '{"text":"it'\''s"}' --out `+code+`.dis tools=post @t.txt; then pass --discharge @`+code+`.dis`) {
		t.Fatalf("hints %q", got)
	}
	if got := approvalHints(tk, rs[:2], nil, approveCmd{ticket: "@t.txt"}); len(got) != 0 {
		t.Fatalf("hints without a block's approval refusal: %q", got)
	}
	if got := approvalHints(tk, rs[2:3], nil, approveCmd{ticket: "-"}); len(got) != 1 || !strings.Contains(got[0], "run: tickettool approve --key lead.key --out "+code+".dis -;") {
		t.Fatalf("hint %q", got)
	}
}
