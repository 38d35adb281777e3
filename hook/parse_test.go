package hook

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestHarnessRoundTrip(t *testing.T) {
	for _, h := range Harnesses() {
		got, err := ParseHarness(h.String())
		if err != nil || got != h {
			t.Errorf("ParseHarness(%q) = %v, %v", h.String(), got, err)
		}
	}
	for _, s := range []string{"", "Claude", "vscode", "claude "} {
		if _, err := ParseHarness(s); err == nil {
			t.Errorf("ParseHarness(%q) accepted", s)
		}
	}
}

// TestOneLine: oneLine: a reason never holds a line break, an escape or a
// bidirectional override, and never grows past its bound.
func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                  "plain",
		"a\nb\rc":                `a\nb\rc`,
		"\x1b[31mred":            `\x1b[31mred`,
		"evil\u202etxt.exe":      `evil\u202etxt.exe`,
		"line\u2028sep":          `line\u2028sep`,
		"bad \xff byte":          `bad \xff byte`,
		"café \uFFFD kept as is": "café \uFFFD kept as is",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := oneLine(strings.Repeat("x", 10*maxReasonBytes)); len(got) > maxReasonBytes+len("…") {
		t.Errorf("OneLine kept %d bytes", len(got))
	}
}

func TestPatchPaths(t *testing.T) {
	for _, tc := range []struct {
		patch string
		want  []string
	}{
		{"*** Begin Patch\n*** Add File: a.go\n+x\n*** End Patch", []string{"/w/a.go"}},
		{"*** Begin Patch\r\n*** Update File: src/a.go\r\n*** Move to: /etc/x\r\n*** End Patch", []string{"/w/src/a.go", "/etc/x"}},
		{"*** Begin Patch\n*** Delete File: ./b//c.go\n*** End Patch", []string{"/w/b/c.go"}},
		{"*** Begin Patch\n*** Add File: ../up.go\n*** End Patch", []string{"/w/../up.go"}},
		// Codex trims a header line: an indented header is a header.
		{"*** Begin Patch\n*** Add File: a.go\n+x\n \t*** Add File: /etc/x\n+y\n*** End Patch", []string{"/w/a.go", "/etc/x"}},
		// Codex keeps a path's leading space: " /etc/x" is relative.
		{"*** Begin Patch\n*** Add File:  /w/a.go\n+x\n*** End Patch", []string{"/w/ /w/a.go"}},
		// Trailing spaces: Codex trims an Add line, not a Move line.
		{"*** Begin Patch\n*** Update File: a \n*** Move to: b \n*** End Patch", []string{"/w/a ", "/w/a", "/w/b ", "/w/b"}},
	} {
		in, _ := json.Marshal(map[string]string{"command": tc.patch})
		ev := &event{Harness: Codex, Tool: "apply_patch", Cwd: "/w"}
		ev.input(in)
		got, err := patchPaths(ev)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("patch %q: %q, %v; want %q", tc.patch, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{"command":"no headers"}`, `{"command":5}`, `{}`, `{"command":"*** Add File: a\\\\b"}`} {
		ev := &event{Harness: Codex, Tool: "apply_patch", Cwd: "/w"}
		ev.input([]byte(bad))
		if got, err := patchPaths(ev); err == nil {
			t.Errorf("patch %s: %q accepted", bad, got)
		}
	}
}

func TestMCPNames(t *testing.T) {
	for _, tc := range []struct {
		h                  Harness
		name, server, tool string
	}{
		{Claude, "mcp__fs__read_file", "fs", "read_file"},
		{Claude, "mcp__plugin_p_fs__a__b", "plugin_p_fs", "a__b"},
		{Codex, "mcp__github__create_issue", "github", "create_issue"},
		{Gemini, "mcp_fs_read_file", "fs", "read_file"},
		{Cursor, "MCP:read_file", "mcp", "read_file"},
		{Copilot, "mcp__fs__read_file", "fs", "read_file"},
	} {
		s, tool, ok := mcpName(&event{Harness: tc.h, Tool: tc.name})
		if !ok || s != tc.server || tool != tc.tool {
			t.Errorf("%v %s: %q %q %v", tc.h, tc.name, s, tool, ok)
		}
	}
	if _, err := mapCall(&event{Harness: Claude, Tool: "mcp__builtin__read", Input: map[string]json.RawMessage{}}); err == nil {
		t.Error("an MCP server named builtin was accepted")
	}
	if _, err := mapCall(&event{Harness: Claude, Tool: "mcp__fs__read_file", Input: map[string]json.RawMessage{"path": []byte(`"rel/x"`)}}); err == nil {
		t.Error("a relative MCP path was accepted")
	}
}

// TestGeminiMCPContext: mcp_context only names apart the server and tool
// of the MCP tool that tool_name names; on any other tool it is refused.
func TestGeminiMCPContext(t *testing.T) {
	ctx := `,"mcp_context":{"server_name":"my_fs","tool_name":"read_file"}}`
	ev, err := parseEvent(Gemini, []byte(`{"hook_event_name":"BeforeTool","tool_name":"mcp_my_fs_read_file"`+ctx))
	if err != nil || ev.mcpServer != "my_fs" || ev.mcpTool != "read_file" {
		t.Errorf("%+v, %v", ev, err)
	}
	for _, tool := range []string{"run_shell_command", "mcp_other_read_file", "read_many_files"} {
		if ev, err := parseEvent(Gemini, []byte(`{"hook_event_name":"BeforeTool","tool_name":"`+tool+`"`+ctx)); err == nil {
			t.Errorf("%s with the context of an MCP tool read as %+v", tool, ev)
		}
	}
}

// TestCopilotPhase: a toolResult does not turn an event named preToolUse
// into a post-tool event, which is never refused.
func TestCopilotPhase(t *testing.T) {
	for _, tc := range []struct {
		event string
		want  phase
	}{
		{`{"toolName":"bash","toolArgs":"{}"}`, pre},
		{`{"toolName":"bash","toolArgs":"{}","toolResult":{"resultType":"success"}}`, post},
		{`{"hook_event_name":"postToolUse","toolName":"bash","toolArgs":"{}","toolResult":{}}`, post},
		{`{"hook_event_name":"preToolUse","toolName":"bash","toolArgs":"{}","toolResult":{"resultType":"success"}}`, pre},
	} {
		if ev, err := parseEvent(Copilot, []byte(tc.event)); err != nil || ev.phase != tc.want {
			t.Errorf("%s: %+v, %v; want phase %d", tc.event, ev, err, tc.want)
		}
	}
}

func TestGeminiPromptURLs(t *testing.T) {
	ev := &event{Harness: Gemini, Tool: "web_fetch"}
	// Whole words, as Gemini's parsePrompt takes them: the hosts caveat
	// then reads "https://a.example.com)@b.example.net/" as host
	// b.example.net, as the WHATWG URL parser does, and refuses the
	// words that are no http or https URL.
	ev.input([]byte(`{"prompt":"Compare https://a.example.com/x, and (http://b.example.org/y).\u0085https://a.example.com)@b.example.net/ Also ftp://c/"}`))
	got, err := fetchURLs(ev, table[Gemini]["web_fetch"])
	if want := []string{"https://a.example.com/x,", "(http://b.example.org/y).\u0085https://a.example.com)@b.example.net/", "ftp://c/"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("%q, %v; want %q", got, err, want)
	}
	ev.input([]byte(`{"prompt":"summarise example.com"}`))
	if _, err := fetchURLs(ev, table[Gemini]["web_fetch"]); err == nil {
		t.Fatal("a prompt without a URL was accepted")
	}
}
