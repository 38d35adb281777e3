package hook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tickettool/tickettool/internal/argsubject"
	"github.com/tickettool/tickettool/mcp"
)

// The names a ticket's tools caveat uses for the harnesses' built-in
// tools: one vocabulary for every harness, qualified by the reserved
// server name "builtin" so that no MCP tool is ever taken for one (an
// unqualified tools entry "read" admits builtin/read and every server's
// read tool alike, as it does for MCP).
const (
	ToolRead      = "builtin/read"      // read a file, list or search a directory: paths
	ToolWrite     = "builtin/write"     // create, edit, delete or move a file: paths
	ToolFetch     = "builtin/fetch"     // fetch a URL: URLs (for hosts)
	ToolShell     = "builtin/shell"     // run a command: no subject (it can touch any file or host)
	ToolWebSearch = "builtin/websearch" // search the web: no subject (the results come from anywhere)
	ToolAgent     = "builtin/agent"     // start a subagent: no subject (its own calls come through the hook)
)

// BuiltinServer is the server name reserved for built-in tools: an MCP
// server of that name is refused.
const BuiltinServer = "builtin"

// kind is what a built-in tool does, which says where its subjects are.
type kind uint8

const (
	kindRead  kind = iota + 1 // paths in the named fields
	kindWrite                 // paths in the named fields; a write to the hook's own files is refused
	kindPatch                 // Codex apply_patch: the paths inside the patch text; a write
	kindFetch                 // URLs in the named fields (and in a Gemini prompt)
	kindShell
	kindWebSearch
	kindAgent
)

var kindTool = [...]string{kindRead: ToolRead, kindWrite: ToolWrite, kindPatch: ToolWrite, kindFetch: ToolFetch,
	kindShell: ToolShell, kindWebSearch: ToolWebSearch, kindAgent: ToolAgent}

// builtin is one row of the tool table.
type builtin struct {
	kind   kind
	fields []string // the input fields holding a path (kindRead, kindWrite) or URL (kindFetch)
	lists  []string // the input fields holding a list of paths
	// cwd: a file tool whose path field is absent works in the event's
	// cwd (Glob, Grep), which is then its path.
	cwd bool
	// patterns are glob pattern fields: a pattern that is absolute or
	// climbs with ".." reaches beyond the tool's path, so its part before
	// the first wildcard is a path too.
	patterns []string
}

func (b builtin) writes() bool { return b.kind == kindWrite || b.kind == kindPatch }

var (
	read      = builtin{kind: kindRead, fields: []string{"file_path"}}
	readNb    = builtin{kind: kindRead, fields: []string{"notebook_path"}}
	readDir   = builtin{kind: kindRead, fields: []string{"path"}, cwd: true}
	globDir   = builtin{kind: kindRead, fields: []string{"path"}, cwd: true, patterns: []string{"pattern"}}
	write     = builtin{kind: kindWrite, fields: []string{"file_path"}}
	writeNb   = builtin{kind: kindWrite, fields: []string{"notebook_path"}}
	gemDir    = builtin{kind: kindRead, fields: []string{"dir_path", "path"}, cwd: true}
	gemGlob   = builtin{kind: kindRead, fields: []string{"dir_path", "path"}, cwd: true, patterns: []string{"pattern"}}
	gemGrep   = builtin{kind: kindRead, fields: []string{"dir_path", "path"}, cwd: true, patterns: []string{"include"}} // its include glob, expanded from the directory as glob's pattern is
	copRead   = builtin{kind: kindRead, fields: []string{"path"}}
	copWrite  = builtin{kind: kindWrite, fields: []string{"path"}}
	fetchURL  = builtin{kind: kindFetch, fields: []string{"url"}}
	shell     = builtin{kind: kindShell}
	webSearch = builtin{kind: kindWebSearch}
	agent     = builtin{kind: kindAgent}
)

// table maps each harness's tool names to rows. The names and fields are
// the harnesses' own (sources in shared/research/hooks.md: Claude Code's
// tools reference and Agent SDK types, Codex's pre_tool_use.rs, Gemini
// CLI's tool definitions, Cursor's hooks reference, Copilot's hooks
// reference); README.md shows it as one table.
var table = map[Harness]map[string]builtin{
	Claude: {
		"Read": read, "NotebookRead": readNb, "LS": readDir, "Glob": globDir, "Grep": readDir,
		"Write": write, "Edit": write, "MultiEdit": write, "NotebookEdit": writeNb,
		"Bash": shell, "PowerShell": shell, "Monitor": shell, "REPL": shell, "Workflow": shell,
		"BashOutput": shell, "KillShell": shell, "KillBash": shell,
		"WebFetch": fetchURL, "WebSearch": webSearch, "Agent": agent, "Task": agent,
	},
	Codex: {
		"Bash": shell, "apply_patch": {kind: kindPatch},
	},
	Gemini: {
		"read_file":      {kind: kindRead, fields: []string{"file_path", "absolute_path"}},
		"list_directory": gemDir, "glob": gemGlob, "grep_search": gemGrep, "search_file_content": gemGrep,
		"write_file": write, "replace": write,
		"run_shell_command": shell,
		"web_fetch":         {kind: kindFetch, fields: []string{"url"}},
		"google_web_search": webSearch, "invoke_agent": agent,
	},
	Cursor: {
		"Read": read, "Grep": readDir, "Glob": globDir, "LS": readDir,
		"Write": write, "Edit": write, "Delete": write,
		"Shell": shell, "WebFetch": fetchURL, "WebSearch": webSearch, "Task": agent,
	},
	Copilot: {
		"view": copRead, "glob": globDir, "grep": readDir,
		"create": copWrite, "edit": copWrite,
		"bash": shell, "powershell": shell,
		"web_fetch": fetchURL, "task": agent,
		// VS Code's agent, which Copilot's Claude-compatible form serves.
		"read_file":       {kind: kindRead, fields: []string{"filePath"}},
		"editFiles":       {kind: kindWrite, lists: []string{"files"}},
		"run_in_terminal": shell,
	},
}

// call is what one tool call asks for, before the ticket is consulted.
type call struct {
	tool   string   // the name the ticket's tools caveat sees
	known  bool     // a built-in tool of the table, or an MCP tool
	mcp    bool     // an MCP tool
	writes bool     // it may write its paths
	paths  []string // absolute, as given (before resolving links)
	urls   []string
}

// mapCall turns an event into a call through the tool table. A tool the
// table does not know keeps the harness's name and carries no subject.
func mapCall(ev *event) (*call, error) {
	if server, tool, ok := mcpName(ev); ok {
		return mapMCP(ev, server, tool)
	}
	b, ok := table[ev.Harness][ev.Tool]
	if !ok {
		return &call{tool: ev.Tool}, nil
	}
	c := &call{tool: kindTool[b.kind], known: true, writes: b.writes()}
	var err error
	switch b.kind {
	case kindRead, kindWrite:
		var raw []string
		if raw, _, err = argsubject.Extract(argsubject.Spec{Paths: b.fields, PathLists: b.lists}, ev.Input); err != nil {
			return nil, fmt.Errorf("tool %s: %s", ev.Tool, strings.TrimPrefix(err.Error(), "argsubject: "))
		}
		if len(raw) == 0 && b.cwd {
			raw = []string{ev.Cwd}
		}
		if raw, err = patternPaths(ev, b, raw); err != nil {
			return nil, err
		}
		if len(raw) == 0 {
			return nil, fmt.Errorf("tool %s names no file (%s)", ev.Tool, strings.Join(append(b.fields, b.lists...), ", "))
		}
		c.paths, err = absPaths(raw, ev.Cwd)
	case kindPatch:
		c.paths, err = patchPaths(ev)
	case kindFetch:
		c.urls, err = fetchURLs(ev, b)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// mcpName reads an MCP tool's server and tool from the harness's name for
// it: mcp__SERVER__TOOL (Claude Code, Codex, Copilot), mcp_SERVER_TOOL
// (Gemini; its mcp_context, when present, names them apart), MCP:TOOL
// (Cursor, which names no server: its MCP tools are checked as
// mcp/TOOL).
func mcpName(ev *event) (server, tool string, ok bool) {
	switch {
	case ev.mcpServer != "":
		return ev.mcpServer, ev.mcpTool, true
	case ev.Harness == Cursor:
		if t, ok := strings.CutPrefix(ev.Tool, "MCP:"); ok {
			return "mcp", t, true
		}
	case ev.Harness == Gemini:
		if rest, ok := strings.CutPrefix(ev.Tool, "mcp_"); ok {
			server, tool, ok = strings.Cut(rest, "_")
			return server, tool, ok
		}
	default:
		if rest, ok := strings.CutPrefix(ev.Tool, "mcp__"); ok {
			server, tool, ok = strings.Cut(rest, "__")
			return server, tool, ok
		}
	}
	return "", "", false
}

// mapMCP maps an MCP call to SERVER/TOOL with the subjects tickettool mcp
// reads (the reference filesystem server's profile; its paths must be
// absolute, as the MCP guard requires).
func mapMCP(ev *event, server, tool string) (*call, error) {
	switch {
	case server == "" || tool == "":
		return nil, fmt.Errorf("MCP tool %q names no server or no tool", ev.Tool)
	case server == BuiltinServer:
		return nil, fmt.Errorf("MCP tool %q: the server name %q is reserved for built-in tools", ev.Tool, BuiltinServer)
	}
	c := &call{tool: server + "/" + tool, known: true, mcp: true}
	spec, ok := mcp.Filesystem().Tools[tool]
	if !ok {
		return c, nil
	}
	paths, urls, err := argsubject.Extract(argsubject.Spec{Paths: spec.Paths, PathLists: spec.PathLists,
		URLs: spec.URLs, URLLists: spec.URLLists}, ev.Input)
	if err != nil {
		return nil, fmt.Errorf("MCP tool %q: %s", ev.Tool, strings.TrimPrefix(err.Error(), "argsubject: "))
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("MCP tool %q: path %q is relative: the server resolves it against directories the hook cannot see", ev.Tool, p)
		}
	}
	if c.paths, err = absPaths(paths, ""); err != nil {
		return nil, err
	}
	c.urls, c.writes = urls, !spec.ReadOnly
	return c, nil
}

// absPaths makes each path absolute against cwd without cleaning "..":
// the caveats refuse a ".." rather than guess where it leads, and path
// resolution follows it after the links before it, as the kernel does.
// "." segments and repeated or trailing slashes are dropped. A backslash
// is refused: on Windows it separates, so it is not trusted as a name
// character either; so is a leading "~", which no shell expands here.
func absPaths(raw []string, cwd string) ([]string, error) {
	out := make([]string, 0, len(raw))
	for _, p := range raw {
		switch {
		case p == "":
			return nil, fmt.Errorf("a path is empty")
		case strings.ContainsRune(p, '\\'):
			return nil, fmt.Errorf("path %q holds a backslash: Windows separators are not trusted", p)
		case strings.ContainsRune(p, 0):
			return nil, fmt.Errorf("path %q holds a NUL", p)
		case strings.HasPrefix(p, "~"):
			return nil, fmt.Errorf("path %q starts with ~, which nothing expands here: give an absolute path", p)
		case !strings.HasPrefix(p, "/"):
			if cwd == "" {
				return nil, fmt.Errorf("path %q is relative and the event has no cwd", p)
			}
			p = cwd + "/" + p
		}
		var segs []string
		for s := range strings.SplitSeq(p, "/") {
			if s != "" && s != "." {
				segs = append(segs, s)
			}
		}
		out = append(out, "/"+strings.Join(segs, "/"))
	}
	return out, nil
}

// patternPaths appends to raw the fixed part of every glob pattern that
// is absolute or holds "..": the directories it reaches outside the
// tool's own path.
func patternPaths(ev *event, b builtin, raw []string) ([]string, error) {
	for _, f := range b.patterns {
		p, err := inputString(ev.Input, f)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %v", ev.Tool, err)
		}
		// A brace alternative that is absolute ("{/etc,x}/*") reaches
		// out as an absolute pattern does: glob libraries expand braces
		// first.
		braceOut := strings.Contains(p, "{") &&
			(strings.Contains(p, "{/") || strings.Contains(p, ",/") || strings.Contains(p, "{~") || strings.Contains(p, ",~"))
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "\\") &&
			!strings.Contains(p, "..") && !strings.Contains(p, "\\") && !braceOut {
			continue
		}
		fixed := p
		if i := strings.IndexAny(p, "*?[{"); i >= 0 {
			fixed = p[:i]
		}
		if j := strings.LastIndexByte(fixed, '/'); j > 0 && len(fixed) != len(p) {
			fixed = fixed[:j]
		}
		if fixed == "" {
			fixed = "/"
		}
		raw = append(raw, fixed)
	}
	return raw, nil
}

// inputString reads a string member of the tool input ("" when absent).
func inputString(in map[string]json.RawMessage, name string) (string, error) {
	raw, ok := argsubject.Present(in, name)
	if !ok {
		return "", nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("input %q must be a string", name)
	}
	return s, nil
}
