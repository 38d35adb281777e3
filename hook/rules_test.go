package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// TestShellUnderPathsTicket: a shell has no subject, so a ticket that
// scopes paths refuses it unless its tools caveat names it; named, it is
// checked as touching the ticket's paths. So is every tool without a
// path, and a tool the table does not know is refused unless named.
func TestShellUnderPathsTicket(t *testing.T) {
	for _, tc := range []struct {
		caveats []string
		tool    string
		allowed bool
		why     string
	}{
		{[]string{"paths=$PROJ/"}, "Bash", false, "request has no path"},
		{[]string{"tools=builtin/read", "paths=$PROJ/"}, "Bash", false, "not in tools="},
		{[]string{"tools=builtin/read,builtin/shell", "paths=$PROJ/"}, "Bash", true, ""},
		{[]string{"tools=builtin/shell,builtin/read", "hosts=example.com"}, "PowerShell", true, ""},
		{[]string{"hosts=example.com"}, "Bash", false, "request has no url"},
		{[]string{"tools=builtin/read", "paths=$PROJ/"}, "TodoWrite", false, "not in the hook's table"},
		{[]string{"tools=builtin/read,TodoWrite", "paths=$PROJ/"}, "TodoWrite", true, ""},
		{[]string{"paths=$PROJ/"}, "TodoWrite", false, "not in the hook's table"},
		{[]string{"tools=shell", "paths=$PROJ/"}, "Monitor", true, ""}, // unqualified shell admits builtin/shell
		// An MCP tool without a path is refused under paths, named or not,
		// as tickettool mcp refuses it.
		{[]string{"tools=builtin/read,github/create_issue", "paths=$PROJ/"}, "mcp__github__create_issue", false, "request has no path"},
	} {
		e := newEnv(t, tc.caveats...)
		ok, why := e.decide(e.claude(tc.tool, `{"command":"cat /etc/passwd"}`))
		if ok != tc.allowed || !strings.Contains(why, tc.why) {
			t.Errorf("%v %s: allowed %v (%s), want %v (%s)", tc.caveats, tc.tool, ok, why, tc.allowed, tc.why)
		}
	}
}

// TestFileToolFilledOnlyWhenNamed: a file tool under a ticket with hosts
// has no URL: it passes the hosts caveat only when tools names it.
func TestFileToolFilledOnlyWhenNamed(t *testing.T) {
	e := newEnv(t, "paths=$PROJ/", "hosts=example.com")
	if ok, _ := e.decide(e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`)); ok {
		t.Fatal("a read passed a hosts caveat without tools naming it")
	}
	e = newEnv(t, "tools=builtin/read", "paths=$PROJ/", "hosts=example.com")
	if ok, why := e.decide(e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`)); !ok {
		t.Fatalf("a named read was refused: %s", why)
	}
	if ok, _ := e.decide(e.claude("Read", `{"file_path":"/etc/passwd"}`)); ok {
		t.Fatal("a named read outside the paths was allowed")
	}
}

// TestSymlinksBothWays: a path through a symbolic link is checked as
// written and as resolved (a new file: its nearest existing parent
// resolved), and refused if either lies outside the ticket.
func TestSymlinksBothWays(t *testing.T) {
	e := newEnv(t, "tools=builtin/read,builtin/write", "paths=$PROJ/")
	out := filepath.Join(e.dir, "outside")
	must(t, os.Symlink(out+"/secret", e.proj+"/src/leak"))        // inside -> outside
	must(t, os.Symlink(out, e.proj+"/src/outdir"))                // inside dir -> outside dir
	must(t, os.Symlink(e.proj+"/src/a.go", out+"/in"))            // outside -> inside
	must(t, os.Symlink(e.proj+"/src/a.go", e.proj+"/src/alias"))  // inside -> inside
	must(t, os.Symlink(out+"/nothing-yet", e.proj+"/src/dangle")) // dangling, to outside
	for _, tc := range []struct {
		tool, path string
		allowed    bool
	}{
		{"Read", "$PROJ/src/alias", true},
		{"Read", "$PROJ/src/leak", false},
		{"Read", "$PROJ/src/outdir/secret", false},
		{"Write", "$PROJ/src/outdir/new-file", false},
		{"Write", "$PROJ/src/dangle", false},
		{"Read", out + "/in", false},
		{"Read", "$PROJ/src/../src/a.go", false}, // ".." is refused, never cleaned
		{"Write", "$PROJ/src/new-dir/new-file", true},
	} {
		ok, why := e.decide(e.claude(tc.tool, `{"file_path":"`+tc.path+`"}`))
		if ok != tc.allowed {
			t.Errorf("%s %s: allowed %v (%s), want %v", tc.tool, tc.path, ok, why, tc.allowed)
		}
	}
}

// TestRelativePathsAndBackslashes: a relative path is taken against the
// event's cwd; a backslash or "~" is refused whatever the ticket.
func TestRelativePathsAndBackslashes(t *testing.T) {
	e := newEnv(t, "tools=builtin/read", "paths=$PROJ/")
	if ok, why := e.decide(e.claude("Read", `{"file_path":"src/a.go"}`)); !ok {
		t.Fatalf("relative path in cwd refused: %s", why)
	}
	for _, p := range []string{`src\\a.go`, `..\\..\\etc\\passwd`, `~/secret`, ``} {
		if ok, _ := e.decide(e.claude("Read", `{"file_path":"`+p+`"}`)); ok {
			t.Errorf("path %s allowed", p)
		}
	}
	e2 := newEnv(t) // no caveat at all on paths: the backslash is still refused
	if ok, _ := e2.decide(e2.claude("Read", `{"file_path":"src\\a.go"}`)); ok {
		t.Error("backslash path allowed under a ticket without paths")
	}
}

// TestOwnFilesProtected: writes to the hook's own ticket, key, store and
// receipt log, and to a harness's hook configuration, are refused even
// under a ticket that allows every path; a secret key is not even read.
func TestOwnFilesProtected(t *testing.T) {
	e := newEnv(t, "tools=builtin/read,builtin/write,fs/write_file", "paths=/")
	e.cfg.Protected = []Protected{
		{Path: e.dir + "/root.key", Secret: true},
		{Path: e.dir + "/store.db"},
		{Path: e.dir + "/r.log"},
		{Path: e.ticketDir, Dir: true},
	}
	must(t, os.Symlink(e.ticketDir, e.proj+"/tickets")) // a way round by a link
	// The hook may be given its own files through a link: the target is
	// protected too.
	must(t, os.MkdirAll(e.dir+"/real-logs", 0o700))
	must(t, os.Symlink(e.dir+"/real-logs", e.dir+"/logs"))
	e.cfg.Protected = append(e.cfg.Protected, Protected{Path: e.dir + "/logs/receipts.log"})
	for _, tc := range []struct {
		tool, input string
		allowed     bool
	}{
		{"Write", `{"file_path":"` + e.ticketDir + `/main.ticket"}`, false},
		{"Edit", `{"file_path":"$PROJ/tickets/Explore.ticket"}`, false},
		{"Write", `{"file_path":"` + e.dir + `/store.db-wal"}`, false},
		{"Write", `{"file_path":"` + e.dir + `/r.log"}`, false},
		{"Read", `{"file_path":"` + e.dir + `/root.key"}`, false},
		{"Read", `{"file_path":"` + e.dir + `/r.log"}`, true},
		// A directory tool over the secret key's directory reads it too.
		{"Grep", `{"pattern":".","path":"` + e.dir + `"}`, false},
		{"Glob", `{"pattern":"**","path":"/"}`, false},
		{"Grep", `{"pattern":".","path":"$PROJ"}`, true},
		{"Write", `{"file_path":"$PROJ/.claude/settings.local.json"}`, false},
		{"Write", `{"file_path":"$PROJ/.Claude/settings.json"}`, false}, // a case-insensitive filesystem's .claude
		{"Write", `{"file_path":"$PROJ/src/.codex/hooks.json"}`, false},
		{"Write", `{"file_path":"` + e.dir + `/home/.gemini/settings.json"}`, false},
		{"NotebookEdit", `{"notebook_path":"$PROJ/.cursor/hooks.json"}`, false},
		{"mcp__fs__write_file", `{"path":"$PROJ/.github/hooks/x.json","content":"{}"}`, false},
		{"Write", `{"file_path":"` + e.dir + `/real-logs/receipts.log"}`, false},
		{"Write", `{"file_path":"$PROJ/.mcp.json"}`, false},
		{"Write", `{"file_path":"` + e.dir + `/home/.claude.json"}`, false},
		{"Write", `{"file_path":"$PROJ/.git/hooks/pre-commit"}`, false},
		{"Edit", `{"file_path":"$PROJ/.git/config"}`, false},
		{"Write", `{"file_path":"` + e.dir + `/home/.config/Code/User/settings.json"}`, false},
		{"Read", `{"file_path":"$PROJ/.git/config"}`, true},
		{"Write", `{"file_path":"$PROJ/.git/HEAD"}`, true},
		{"Write", `{"file_path":"$PROJ/src/code/user.go"}`, true},
		{"Write", `{"file_path":"$PROJ/src/b.go"}`, true},
	} {
		ok, why := e.decide(e.claude(tc.tool, tc.input))
		if ok != tc.allowed {
			t.Errorf("%s %s: allowed %v (%s), want %v", tc.tool, tc.input, ok, why, tc.allowed)
		}
		if !ok && !tc.allowed && !strings.Contains(why, "whatever the ticket says") {
			t.Errorf("%s %s: reason %q", tc.tool, tc.input, why)
		}
	}
	// Codex: the paths inside a patch.
	e.cfg.Harness = Codex
	patch := `{"session_id":"s","cwd":"` + e.proj + `","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/a.go\n*** Move to: .codex/config.toml\n*** End Patch"}}`
	if a := Decide(context.Background(), e.cfg, []byte(patch)); a.Code != 2 || !strings.Contains(string(a.Stderr), "whatever the ticket says") {
		t.Errorf("a patch moving a file into .codex: %+v", a)
	}
}

// TestSubagentTickets: a subagent's own ticket applies when it narrows
// the main ticket; one of another family, or one that does not extend
// the main ticket, refuses every call under it.
func TestSubagentTickets(t *testing.T) {
	e := newEnv(t, "tools=builtin/read,builtin/write", "paths=$PROJ/")
	cs, err := caveat.ParseAll([]string{"tools=builtin/read", "paths=" + e.proj + "/src/"}, testNow)
	must(t, err)
	narrow, err := e.mainTicket.Attenuate(cs, nil)
	must(t, err)
	e.write("Explore.ticket", narrow)
	write := e.claude("Write", `{"file_path":"$PROJ/src/b.go"}`, "agent_type", "Explore", "agent_id", "a1")
	if ok, _ := e.decide(write); ok {
		t.Error("the subagent wrote under a read-only ticket")
	}
	if ok, why := e.decide(e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`, "agent_type", "Explore", "agent_id", "a1")); !ok {
		t.Errorf("the subagent's read was refused: %s", why)
	}
	if ok, why := e.decide(e.claude("Write", `{"file_path":"$PROJ/src/b.go"}`)); !ok {
		t.Errorf("the main agent's write was refused: %s", why)
	}
	if ok, why := e.decide(e.claude("Write", `{"file_path":"$PROJ/src/b.go"}`, "agent_type", "Plan")); !ok {
		t.Errorf("a subagent without its own ticket was refused the main ticket's write: %s", why)
	}
	// Another family: a fresh ticket under the same key, even a wider one.
	e.write("Explore.ticket", e.mint("tools=builtin/read,builtin/write,builtin/shell", "paths=/"))
	if ok, why := e.decide(e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`, "agent_type", "Explore")); ok || !strings.Contains(why, "not attenuated from the main ticket") {
		t.Errorf("a subagent ticket of another family: allowed %v (%s)", ok, why)
	}
	// The main ticket itself, copied: no narrower, but no wider: allowed.
	e.write("Explore.ticket", e.mainTicket)
	if ok, why := e.decide(e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`, "agent_type", "Explore")); !ok {
		t.Errorf("a subagent ticket equal to the main ticket: %s", why)
	}
	// An agent type that cannot name a file gets the main ticket: never a
	// ticket elsewhere its name would lead to.
	must(t, os.MkdirAll(e.dir+"/other", 0o700))
	other := e.mint("tools=builtin/read", "paths=/")
	must(t, os.WriteFile(e.dir+"/other/x.ticket", []byte(other.String()), 0o600))
	for _, typ := range []string{"../other/x", "../agent/main", ".hidden", "a b", "main"} {
		if ok, why := e.decide(e.claude("Write", `{"file_path":"$PROJ/src/b.go"}`, "agent_type", typ)); !ok {
			t.Errorf("agent type %q did not get the main ticket: %s", typ, why)
		}
	}
}

// TestPanicRefuses: a panic inside the hook is the harness's deny.
func TestPanicRefuses(t *testing.T) {
	e := newEnv(t, "tools=builtin/read", "paths=$PROJ/")
	e.cfg.Guard = nil // the guard is dereferenced when the call is checked
	a := Decide(context.Background(), e.cfg, []byte(e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`)))
	if a.Code != 2 || !strings.Contains(string(a.Stdout), `"deny"`) || !strings.Contains(string(a.Stderr), "hook failed") {
		t.Fatalf("panic answered %+v", a)
	}
}

// TestReceiptPerDecision: every decision (the guard's and the hook's own)
// leaves one receipt; a post-tool event leaves one linked by the
// tool-use id and gives no budget back; a receipt log that fails refuses.
func TestReceiptPerDecision(t *testing.T) {
	e := newEnv(t, "tools=builtin/read", "paths=$PROJ/", "calls=1")
	rk, err := key.Generate(key.Ed25519, "rcpt")
	must(t, err)
	logPath := filepath.Join(e.dir, "r.log")
	log, err := chain.Open(logPath, rk, "tickettool")
	must(t, err)
	e.cfg.Receipts = log
	keys, err := token.NewKeyring(e.root.Verifying())
	must(t, err)
	e.cfg.Guard, err = guard.New(guard.Config{Keys: keys, Receipts: log})
	must(t, err)
	events := []string{
		e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`),
		strings.Replace(e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`), `"PreToolUse"`, `"PostToolUseFailure"`, 1),
		e.claude("Read", `{"file_path":"$PROJ/src/a.go"}`), // budget spent: the failure gave nothing back
		e.claude("Frobnicate", `{}`),
		`{"not an event":`,
	}
	var allowed []bool
	for _, ev := range events[:1] {
		ok, _ := e.decide(ev)
		allowed = append(allowed, ok)
	}
	if a := Decide(context.Background(), e.cfg, []byte(events[1])); a.Code != 0 || len(a.Stdout) != 0 {
		t.Fatalf("post-tool event answered %+v", a)
	}
	for _, ev := range events[2:4] {
		ok, _ := e.decide(ev)
		allowed = append(allowed, ok)
	}
	if a := Decide(context.Background(), e.cfg, []byte(events[4])); a.Code != 2 {
		t.Fatalf("an unreadable event answered %+v", a)
	}
	if allowed[0] != true || allowed[1] || allowed[2] {
		t.Fatalf("decisions %v, want allowed, refused (calls=1 spent), refused", allowed)
	}
	must(t, log.Close())
	recs := readRecords(t, logPath)
	if len(recs) != 5 {
		t.Fatalf("%d receipts, want 5", len(recs))
	}
	if r := recs[4]; r.Kind != chain.KindRefused || !strings.Contains(r.Reason, "cannot read the hook event") {
		t.Errorf("receipt of the unreadable event: %+v", r)
	}
	kinds := []chain.Kind{chain.KindAllowed, chain.KindOther, chain.KindRefused, chain.KindRefused}
	for i, r := range recs[:4] {
		if r.Kind != kinds[i] || !strings.Contains(r.Note, "tool_use_id toolu_1") {
			t.Errorf("receipt %d: kind %v note %q", i, r.Kind, r.Note)
		}
	}
	// A log that cannot be written refuses.
	log2, err := chain.Open(logPath, rk, "tickettool")
	must(t, err)
	must(t, log2.Close())
	e.cfg.Receipts = log2
	e.cfg.Guard, err = guard.New(guard.Config{Keys: keys, Receipts: log2})
	must(t, err)
	if ok, why := e.decide(e.claude("Frobnicate", `{}`)); ok || !strings.Contains(why, "receipt") {
		t.Errorf("closed log: allowed %v (%s)", ok, why)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readRecords(t *testing.T, path string) []chain.Record {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var out []chain.Record
	for e, err := range chain.Scan(f) {
		must(t, err)
		out = append(out, e.Record)
	}
	return out
}

// TestFetchHosts: a fetch gives its URL's host to hosts caveats, in every
// harness's form; a fetch that names no URL is refused.
func TestFetchHosts(t *testing.T) {
	e := newEnv(t, "tools=builtin/fetch", "hosts=docs.example.com")
	for _, tc := range []struct {
		url     string
		allowed bool
	}{
		{"https://docs.example.com/guide", true},
		{"https://evil.example.net/", false},
		{"https://docs.example.com.evil.net/", false},
		{"https://user@evil.example.net/?docs.example.com", false},
	} {
		if ok, why := e.decide(e.claude("WebFetch", `{"url":"`+tc.url+`","prompt":"read it"}`)); ok != tc.allowed {
			t.Errorf("WebFetch %s: allowed %v (%s)", tc.url, ok, why)
		}
	}
	if ok, _ := e.decide(e.claude("WebFetch", `{"prompt":"read https://docs.example.com/"}`)); ok {
		t.Error("a Claude WebFetch without url was allowed")
	}
	e.cfg.Harness = Gemini
	ev := `{"session_id":"s","cwd":"` + e.proj + `","hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"prompt":"compare https://docs.example.com/a and https://evil.example.net/b"}}`
	if a := Decide(context.Background(), e.cfg, []byte(ev)); a.Code != 2 || !strings.Contains(string(a.Stderr), "evil.example.net") {
		t.Errorf("a Gemini prompt with a second host: %+v", a)
	}
	// Gemini's URL parser reads this word as a URL of host
	// evil.example.net (the rest is its user name).
	for _, word := range []string{`https://docs.example.com)@evil.example.net/`, `https://docs.example.com'@evil.example.net/`} {
		ev = `{"cwd":"` + e.proj + `","hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"prompt":"summarise ` + word + `"}}`
		if a := Decide(context.Background(), e.cfg, []byte(ev)); a.Code != 2 {
			t.Errorf("a Gemini prompt with %s: %+v", word, a)
		}
	}
	ev = `{"cwd":"` + e.proj + `","hook_event_name":"BeforeTool","tool_name":"web_fetch","tool_input":{"prompt":"summarise https://docs.example.com/a, please"}}`
	if a := Decide(context.Background(), e.cfg, []byte(ev)); a.Code != 0 {
		t.Errorf("a Gemini prompt with one allowed URL: %+v", a)
	}
}

// TestGlobPatternsReachingOut: a glob pattern that is absolute or climbs
// with ".." is checked as the directory it reaches.
func TestGlobPatternsReachingOut(t *testing.T) {
	e := newEnv(t, "tools=builtin/read", "paths=$PROJ/")
	for _, tc := range []struct {
		input   string
		allowed bool
	}{
		{`{"pattern":"src/**/*.go"}`, true},
		{`{"pattern":"**/*.go","path":"$PROJ/src"}`, true},
		{`{"pattern":"$PROJ/src/*.go"}`, true},
		{`{"pattern":"/etc/**/*.conf"}`, false},
		{`{"pattern":"/etc/passwd"}`, false},
		{`{"pattern":"../*"}`, false},
		{`{"pattern":"~/.ssh/*"}`, false},
		{`{"pattern":"/*"}`, false},
		{`{"pattern":"{/etc,src}/*"}`, false},
		{`{"pattern":"{src,~/.ssh}/*"}`, false},
		{`{"pattern":"src/{a,b}/*.go"}`, true},
	} {
		if ok, why := e.decide(e.claude("Glob", tc.input)); ok != tc.allowed {
			t.Errorf("Glob %s: allowed %v (%s), want %v", tc.input, ok, why, tc.allowed)
		}
	}
	// Gemini's grep: its include glob reaches out the same way.
	e.cfg.Harness = Gemini
	for _, tc := range []struct {
		include string
		allowed bool
	}{{"src/**/*.go", true}, {"/etc/**", false}, {"{/etc,src}/*", false}} {
		ev := `{"cwd":"` + e.proj + `","hook_event_name":"BeforeTool","tool_name":"grep_search","tool_input":{"pattern":"x","include":"` + tc.include + `"}}`
		if a := Decide(context.Background(), e.cfg, []byte(ev)); (a.Code == 0) != tc.allowed {
			t.Errorf("grep_search include %s: %+v, want allowed %v", tc.include, a, tc.allowed)
		}
	}
}

// TestLookalikeNames: a name that does not exist byte for byte is looked
// up by its Unicode NFC form, as the MCP guard does, so a link reached by
// another spelling of its name is followed; two entries of one NFC form
// are ambiguous and refused.
func TestLookalikeNames(t *testing.T) {
	e := newEnv(t, "tools=builtin/read", "paths=$PROJ/")
	must(t, os.Symlink(filepath.Join(e.dir, "outside"), e.proj+"/src/cafe\u0301"))
	if ok, _ := e.decide(e.claude("Read", `{"file_path":"$PROJ/src/caf\u00e9/secret"}`)); ok {
		t.Error("a link reached by its NFC spelling led outside")
	}
	must(t, os.WriteFile(e.proj+"/src/\u00c5x", nil, 0o600))
	must(t, os.WriteFile(e.proj+"/src/A\u030ax", nil, 0o600))
	if ok, why := e.decide(e.claude("Read", `{"file_path":"$PROJ/src/\u212bx"}`)); ok || !strings.Contains(why, "more than one entry") {
		t.Errorf("an ambiguous name: allowed %v (%s)", ok, why)
	}
}
