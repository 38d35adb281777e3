package mcp

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// approverKey is the approver of the tests: key id lead.
func approverKey(t testing.TB) *key.Signing {
	t.Helper()
	k, err := fixedkey.Signing(key.Ed25519, "lead", "mcp lead key")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// approvalCaveat returns an approval by k with the given nonce byte.
func approvalCaveat(t testing.TB, k *key.Signing, nonce byte, location string) caveat.Caveat {
	t.Helper()
	a := caveat.Approver{KeyID: k.ID(), Location: location}
	copy(a.Key[:], publicOf(t, k))
	a.Nonce[0] = nonce
	c, err := caveat.NewApproval(a)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// publicOf returns the 32 bytes of an Ed25519 key, through its
// signature: the public key string is ID+HASH+base64(0x01 ‖ key).
func publicOf(t testing.TB, k *key.Signing) []byte {
	t.Helper()
	parts := strings.SplitN(k.Verifying().String(), "+", 3)
	b, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(b) != 33 {
		t.Fatalf("public key string: %v", err)
	}
	return b[1:]
}

// approvalProxy is a proxy for a ticket with one approval by lead, over a
// discharge directory.
func approvalProxy(t testing.TB) (*Proxy, *token.Ticket, string, *syncBuffer) {
	t.Helper()
	sk, keys := rootKey(t)
	cs, err := caveat.ParseAll([]string{"tools=write_file,read_file", "until=1h"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	cs = append(cs, approvalCaveat(t, approverKey(t), 1, "https://chat.example.com/lead"))
	tk, err := token.Mint(sk, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := realTempDir(t)
	lg := &syncBuffer{}
	p, err := New(Config{Ticket: tk, Keys: keys, DischargeDir: dir, ApproveTicket: "@/etc/fs.ticket", Now: fixedNow, Log: lg})
	if err != nil {
		t.Fatal(err)
	}
	return p, tk, dir, lg
}

// approve makes a discharge of tk's block 0 by lead with the caveats.
func approve(t testing.TB, tk *token.Ticket, cavs ...caveat.Caveat) string {
	t.Helper()
	bind, err := tk.Binding(0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := token.Approve(approverKey(t), bind, cavs, fixedkey.ApprovedAt(cavs))
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

func untilC(t testing.TB, d time.Duration) caveat.Caveat {
	c, err := caveat.NewUntil(t0.Add(d))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func argsC(t testing.TB, json string) caveat.Caveat {
	d, err := caveat.ArgsDigest([]byte(json))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := caveat.NewArgs(d)
	return c
}

// TestApprovalText: a refusal for an approval tells the agent who must
// approve (key id, location, code) and the exact approve command, after
// writing the call's arguments to CODE-HEX.json (mode 0600) in the
// discharge directory; other refusals add nothing.
func TestApprovalText(t *testing.T) {
	p, tk, dir, _ := approvalProxy(t)
	st := p.state()
	args := []byte(`{"path":"/srv/post.txt","content":"it's Q3"}`)
	digest, _ := caveat.ArgsDigest(args)
	bind, _ := tk.Binding(0)
	code := token.BindingCode(bind)
	name := argsName(code, "post", digest)
	rs := []verify.Refusal{
		{Check: verify.CheckCaveat, Block: 0, Kind: caveat.Tools, Reason: "x"},
		{Check: verify.CheckApproval, Block: -1, Reason: "discharge 0 matches no approval of this ticket"},
		{Check: verify.CheckApproval, Block: 0, Kind: caveat.Approval, Reason: "approval required from lead (code " + code + ")"},
	}
	got := p.approvalText(st, &verify.Decision{Refusals: rs}, "post", args, digest)
	want := "approval needed from lead at https://chat.example.com/lead (code " + code + "): ask them to check the code and run: " +
		"tickettool approve --key lead.key --once --args @" + filepath.Join(dir, name+".json") + " --out " + filepath.Join(dir, name+".dis") + " tools=post @/etc/fs.ticket"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// A name already taken (a discharge used up, or a link the agent
	// planted) is not announced again: approve --out would refuse it.
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, name+".dis")); err != nil {
		t.Fatal(err)
	}
	if got := p.approvalText(st, &verify.Decision{Refusals: rs}, "post", args, digest); !strings.Contains(got, " --out "+filepath.Join(dir, name+"-2.dis")+" ") {
		t.Fatalf("taken name announced again: %s", got)
	}
	fi, err := os.Stat(filepath.Join(dir, name+".json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("arguments file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, name+".json"))
	if d, _ := caveat.ArgsDigest(b); string(d) != string(digest) {
		t.Fatalf("the file's arguments have another digest: %q", b)
	}
	if got := p.approvalText(st, &verify.Decision{Refusals: rs[:2]}, "post", args, digest); got != "" {
		t.Fatalf("no approval refusal, yet %q", got)
	}
	// Without a directory the arguments are quoted inline; arguments
	// without a digest give no command: one without --args would approve
	// any arguments the agent sends.
	p.cfg.DischargeDir = ""
	got = p.approvalText(st, &verify.Decision{Refusals: rs}, "post", args, digest)
	if !strings.HasSuffix(got, `run: tickettool approve --key lead.key --once --args '{"path":"/srv/post.txt","content":"it'\''s Q3"}' tools=post @/etc/fs.ticket`) {
		t.Fatalf("inline: %s", got)
	}
	got = p.approvalText(st, &verify.Decision{Refusals: rs}, "post", args, nil)
	if strings.Contains(got, "tickettool approve") || !strings.Contains(got, "(code "+code+"), but the call's arguments have no args digest") {
		t.Fatalf("no digest: %s", got)
	}
	// The tool name is the agent's: one that tools= would read as two
	// tools (or not as a tool at all) gets no command.
	for _, tool := range []string{"post,delete_channel", "post delete", ""} {
		got = p.approvalText(st, &verify.Decision{Refusals: rs}, tool, args, digest)
		if strings.Contains(got, "tickettool approve") || !strings.Contains(got, "not one a discharge can name") {
			t.Errorf("tool %q: %s", tool, got)
		}
	}
}

// pick returns the discharges a write_file call with the args digest
// carries.
func pick(p *Proxy, digest []byte) []string {
	got, _ := p.poolDischarges(p.state(), &caveat.Request{Tool: "write_file", Op: "invoke", Args: digest}, t0)
	return got
}

// TestPoolDischarges: from a directory holding discharges for several
// things, a call carries at most one per approval, the one that matches
// its binding, is not expired and names the call's args (if any); files
// not named *.dis and malformed lines are skipped; a file dropped later
// counts from the next call on.
func TestPoolDischarges(t *testing.T) {
	p, tk, dir, lg := approvalProxy(t)
	sk, _ := rootKey(t)
	cs := []caveat.Caveat{untilC(t, time.Hour), approvalCaveat(t, approverKey(t), 1, "https://chat.example.com/lead")}
	other, err := token.Mint(sk, cs, nil) // a sibling: the same caveats, another ticket id
	if err != nil {
		t.Fatal(err)
	}
	args := `{"path":"/srv/a"}`
	digest, _ := caveat.ArgsDigest([]byte(args))
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	expired := approve(t, tk, untilC(t, 0))
	otherArgs := approve(t, tk, untilC(t, 20*time.Minute), argsC(t, `{"path":"/srv/b"}`))
	write("a.dis", expired+"\n"+otherArgs+"\n")
	write("junk.dis", "dis1_AAAA\nnot a discharge\n")
	good := approve(t, tk, untilC(t, 5*time.Minute), argsC(t, args))
	write("good.txt", good) // not *.dis: never read
	if got := pick(p, digest); len(got) != 0 {
		t.Fatalf("picked %q", got)
	}
	if !strings.Contains(lg.String(), "discharge file junk.dis line 1: skipped") {
		t.Fatalf("log: %s", lg)
	}
	// A discharge for the sibling's approval never matches.
	write("sibling.dis", approve(t, other, untilC(t, 9*time.Minute), argsC(t, args)))
	if got := pick(p, digest); len(got) != 0 {
		t.Fatalf("picked the sibling's %q", got)
	}
	write("good.dis", good)
	got := pick(p, digest)
	if len(got) != 1 || got[0] != good {
		t.Fatalf("picked %d: %q", len(got), got)
	}
	// The latest until wins among usable ones; one without args is usable.
	later := approve(t, tk, untilC(t, 9*time.Minute))
	write("later.dis", later)
	if got := pick(p, digest); len(got) != 1 || got[0] != later {
		t.Fatalf("picked %q", got)
	}
	// The call without a digest cannot use an args discharge.
	os.Remove(filepath.Join(dir, "later.dis"))
	if got := pick(p, nil); len(got) != 0 {
		t.Fatalf("picked %q for a call without digest", got)
	}
}

// TestApprovalFlow: through the proxy, a write_file to a ticket with an
// approval is refused, telling the agent the approve command; once the
// discharge that command makes is in the directory (no restart), the
// same call is allowed once, and refused again (the guard's discharge
// budgets).
//
// It runs over stdio and, with the server behind the SDK's Streamable
// HTTP handler, over each revision the guard speaks to an HTTP server:
// one policy for every transport.
func TestApprovalFlow(t *testing.T) {
	for _, v := range []string{"2025-11-25", "http:" + ProtocolSessions, "http:" + ProtocolStateless} {
		t.Run(v, func(t *testing.T) { testApprovalFlow(t, v) })
	}
}

func testApprovalFlow(t *testing.T, version string) {
	s, dir := startApprovalVersion(t, version)
	args := map[string]any{"path": filepath.Join(s.dir, "post.txt"), "content": "Q3 prices up 3%"}
	txt, isErr := s.call(t, "write_file", args)
	if !isErr || !strings.Contains(txt, "approval needed from lead (code ") || !strings.Contains(txt, "--once --args @"+dir) {
		t.Fatalf("first call: %v %s", isErr, txt)
	}
	// The person runs the command: the arguments file it names, approved.
	i := strings.Index(txt, "--args @") + len("--args @")
	argsPath := strings.Fields(txt[i:])[0]
	b, err := os.ReadFile(argsPath)
	if err != nil {
		t.Fatal(err)
	}
	dis := approve(t, s.p.state().ticket, untilC(t, 10*time.Minute), argsC(t, string(b)), mustCalls(t, 1))
	disPath := strings.TrimSuffix(argsPath, ".json") + DischargeSuffix
	if err := os.WriteFile(disPath, []byte(dis+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if txt, isErr := s.call(t, "write_file", args); isErr {
		t.Fatalf("approved call refused: %s", txt)
	}
	if txt, isErr := s.call(t, "write_file", args); !isErr {
		t.Fatalf("second call with a calls=1 discharge allowed: %s", txt)
	}
	if n := len(s.rec.seen()); n != 1 {
		t.Fatalf("the server ran %d calls, want 1", n)
	}
}

func mustCalls(t testing.TB, n uint64) caveat.Caveat {
	c, err := caveat.NewCalls(n)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCallArgs: the args digest covers params.arguments, "{}" when they
// are absent and the value null when they are null (spec/CAVEATS.md);
// arguments JCS cannot canonicalise give none.
func TestCallArgs(t *testing.T) {
	empty, _ := caveat.ArgsDigest([]byte("{}"))
	null, _ := caveat.ArgsDigest([]byte("null"))
	obj, _ := caveat.ArgsDigest([]byte(`{"b":1,"a":"x"}`))
	for _, tc := range []struct {
		params map[string]json.RawMessage
		want   []byte
	}{
		{map[string]json.RawMessage{}, empty},
		{map[string]json.RawMessage{"arguments": json.RawMessage("null")}, null},
		{map[string]json.RawMessage{"arguments": json.RawMessage(`{"a":"x","b":1.0}`)}, obj},
		{map[string]json.RawMessage{"arguments": json.RawMessage(`{"n":1e400}`)}, nil},
	} {
		if _, got := callArgs(tc.params); string(got) != string(tc.want) {
			t.Errorf("callArgs(%s): %x, want %x", tc.params["arguments"], got, tc.want)
		}
	}
}

// startApproval starts the proxy with a ticket allowing read_file and
// write_file under the server's directory, with one approval caveat by
// approverKey, and a discharge directory, which it returns.
func startApproval(t *testing.T) (*setup, string) {
	t.Helper()
	return startApprovalVersion(t, "2025-11-25")
}

// startApprovalVersion is startApproval over the given transport and
// protocol version (see start).
func startApprovalVersion(t *testing.T, version string) (*setup, string) {
	t.Helper()
	var dir string
	s := start(t, options{version: version, edit: func(c *Config, s *setup) {
		sk, _ := rootKey(t)
		cs, err := caveat.ParseAll([]string{"paths=" + s.dir, "tools=read_file,write_file", "until=1h"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		c.Ticket, err = token.Mint(sk, append(cs, approvalCaveat(t, approverKey(t), 7, "")), nil)
		if err != nil {
			t.Fatal(err)
		}
		dir = realTempDir(t)
		c.DischargeDir = dir
	}})
	return s, dir
}
