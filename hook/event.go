package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/argsubject"
	"github.com/tickettool/tickettool/internal/jcs"
)

// errInput is matched by the error of an event the hook cannot read: it
// is refused, never guessed at.
var errInput = errors.New("hook: unreadable event")

// phase says whether an event comes before or after the tool runs.
type phase uint8

// The phases.
const (
	pre  phase = iota + 1 // before the tool runs: the call is decided
	post                  // after it ran (or failed): the outcome is recorded
)

// event is one hook event, as every harness's form reads into it.
type event struct {
	Harness Harness
	Name    string // the event's name as the harness sends it ("PreToolUse", "BeforeTool", "preToolUse")
	phase   phase
	Tool    string                     // the harness's tool name
	Input   map[string]json.RawMessage // the tool's input object
	Cwd     string                     // absolute, or "" when the event has none
	// ToolUseID links a pre-tool event to its post-tool event, where the
	// harness has one.
	ToolUseID string
	// AgentType and AgentID are set for a call made inside a subagent
	// (Claude Code, Codex).
	AgentType, AgentID string
	// Failed is set on a post-tool event of a call that failed.
	Failed bool
	// Pascal is set for Copilot's Claude-compatible input form.
	Pascal bool

	mcpServer, mcpTool string // a Gemini MCP call's, from its mcp_context
}

// parseEvent reads one event of harness h. Its error wraps errInput.
func parseEvent(h Harness, data []byte) (*event, error) {
	top, err := object(data)
	if err != nil {
		return nil, inputErr("the event is not a JSON object without duplicate names: %v", err)
	}
	ev := &event{Harness: h}
	switch h {
	case Claude, Codex, Gemini:
		err = ev.claudeForm(top)
	case Cursor:
		err = ev.cursorForm(top)
	case Copilot:
		if _, camel := top["toolName"]; camel {
			err = ev.copilotForm(top)
		} else {
			ev.Pascal = true
			err = ev.claudeForm(top)
		}
	default:
		err = inputErr("unknown harness %v", h)
	}
	if err != nil {
		return nil, err
	}
	if ev.Tool == "" {
		return nil, inputErr("the event names no tool")
	}
	if ev.Cwd != "" && !filepath.IsAbs(ev.Cwd) {
		return nil, inputErr("cwd %q is not an absolute path", ev.Cwd)
	}
	return ev, nil
}

// claudeForm reads the Claude-shaped event of Claude Code, Codex, Gemini
// and Copilot's Claude-compatible form.
func (ev *event) claudeForm(top map[string]json.RawMessage) error {
	if err := strings3(top, []string{"hook_event_name", "tool_name", "cwd", "tool_use_id", "agent_type", "agent_id"},
		&ev.Name, &ev.Tool, &ev.Cwd, &ev.ToolUseID, &ev.AgentType, &ev.AgentID); err != nil {
		return err
	}
	switch ev.Name {
	case "PreToolUse", "BeforeTool":
		ev.phase = pre
	case "PostToolUse", "AfterTool":
		ev.phase = post
		ev.Failed = hasError(top["tool_response"])
	case "PostToolUseFailure":
		ev.phase, ev.Failed = post, true
	case "":
		if ev.Pascal {
			ev.phase = pre
			break
		}
		return inputErr("the event has no hook_event_name")
	default:
		return inputErr("event %q is not a tool event the hook answers", ev.Name)
	}
	if ev.Harness == Gemini && ev.Name != "BeforeTool" && ev.Name != "AfterTool" {
		return inputErr("event %q is not a Gemini CLI event (BeforeTool, AfterTool)", ev.Name)
	}
	if ev.Harness == Gemini {
		if err := ev.geminiMCP(top["mcp_context"]); err != nil {
			return err
		}
	}
	return ev.input(top["tool_input"])
}

// cursorForm reads Cursor's events: the generic preToolUse, postToolUse
// and postToolUseFailure, and the granular beforeShellExecution,
// beforeReadFile and beforeMCPExecution.
func (ev *event) cursorForm(top map[string]json.RawMessage) error {
	if err := strings3(top, []string{"hook_event_name", "tool_name", "cwd", "tool_use_id"},
		&ev.Name, &ev.Tool, &ev.Cwd, &ev.ToolUseID); err != nil {
		return err
	}
	if ev.Cwd == "" {
		var roots []string
		if raw, ok := argsubject.Present(top, "workspace_roots"); ok {
			if json.Unmarshal(raw, &roots) != nil {
				return inputErr("workspace_roots must be an array of strings")
			}
		}
		if len(roots) > 0 {
			ev.Cwd = roots[0]
		}
	}
	switch ev.Name {
	case "preToolUse":
		ev.phase = pre
		return ev.input(top["tool_input"])
	case "beforeMCPExecution":
		if !strings.HasPrefix(ev.Tool, "MCP:") {
			ev.Tool = "MCP:" + ev.Tool
		}
		ev.phase = pre
		return ev.input(top["tool_input"])
	case "postToolUse":
		ev.phase = post
		return ev.input(top["tool_input"])
	case "postToolUseFailure":
		ev.phase, ev.Failed = post, true
		return ev.input(top["tool_input"])
	case "beforeShellExecution":
		ev.phase, ev.Tool, ev.Input = pre, "Shell", pick(top, "command", "cwd")
	case "beforeReadFile":
		ev.phase, ev.Tool, ev.Input = pre, "Read", pick(top, "file_path")
	default:
		return inputErr("event %q is not a Cursor tool event the hook answers", ev.Name)
	}
	return nil
}

// copilotForm reads Copilot's camelCase event: toolName and toolArgs (a
// JSON text, or an object); a toolResult marks the post-tool event.
func (ev *event) copilotForm(top map[string]json.RawMessage) error {
	if err := strings3(top, []string{"toolName", "cwd", "hook_event_name"}, &ev.Tool, &ev.Cwd, &ev.Name); err != nil {
		return err
	}
	ev.phase = pre
	// A toolResult marks a post-tool event only where the event's name
	// (when it has one) says so: a pre-tool event is always decided.
	postName := ev.Name == "" || ev.Name == "postToolUse" || ev.Name == "postToolUseFailure"
	if raw, ok := argsubject.Present(top, "toolResult"); ok && postName {
		ev.phase = post
		var r struct {
			ResultType string `json:"resultType"`
		}
		_ = json.Unmarshal(raw, &r)
		ev.Failed = r.ResultType != "success"
	}
	if ev.Name == "" {
		ev.Name = map[phase]string{pre: "preToolUse", post: "postToolUse"}[ev.phase]
	}
	return ev.input(top["toolArgs"])
}

// input reads the tool's input: an object, a JSON text holding one
// (Copilot's toolArgs, Cursor's MCP tool_input), or absent.
func (ev *event) input(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		ev.Input = map[string]json.RawMessage{}
		return nil
	}
	if raw[0] == '"' {
		var text string
		if json.Unmarshal(raw, &text) != nil {
			return inputErr("the tool input is not valid JSON")
		}
		raw = []byte(text)
		if strings.TrimSpace(text) == "" {
			raw = []byte("{}")
		}
	}
	in, err := object(raw)
	if err != nil {
		return inputErr("the tool input is not a JSON object without duplicate names: %v", err)
	}
	ev.Input = in
	return nil
}

// geminiMCP takes the server and tool of a Gemini MCP call from its
// mcp_context when the event has one (Gemini's mcp_SERVER_TOOL name alone
// cannot tell a server name with "_" from a tool name with "_").
func (ev *event) geminiMCP(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var c struct {
		Server string `json:"server_name"`
		Tool   string `json:"tool_name"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return inputErr("mcp_context is not an object of strings")
	}
	if c.Server != "" && c.Tool != "" {
		// It only names apart what tool_name says: a context on
		// another tool (run_shell_command) would have the hook check
		// one tool while Gemini runs another.
		if ev.Tool != "mcp_"+c.Server+"_"+c.Tool {
			return inputErr("mcp_context names %s/%s but the tool is %q", c.Server, c.Tool, ev.Tool)
		}
		ev.mcpServer, ev.mcpTool = c.Server, c.Tool
	}
	return nil
}

// hasError reports whether a Gemini tool_response carries an error.
func hasError(raw json.RawMessage) bool {
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	_, ok := argsubject.Present(r, "error")
	return ok
}

// pick returns the named members of top, as a tool input.
func pick(top map[string]json.RawMessage, names ...string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, n := range names {
		if v, ok := top[n]; ok {
			out[n] = v
		}
	}
	return out
}

// strings3 reads each named member that is present into its string; a
// member of another type is an error.
func strings3(top map[string]json.RawMessage, names []string, dst ...*string) error {
	for i, n := range names {
		raw, ok := argsubject.Present(top, n)
		if !ok {
			continue
		}
		if raw[0] != '"' || json.Unmarshal(raw, dst[i]) != nil || !utf8.ValidString(*dst[i]) {
			return inputErr("%s must be a string", n)
		}
	}
	return nil
}

// object decodes a JSON object whose member names are unique, also under
// Unicode case folding (a decoder that folds case would read one of two
// such members, and not necessarily the one the hook read).
func object(data []byte) (map[string]json.RawMessage, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	fields := map[string]json.RawMessage{}
	folded := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		if f := jcs.FoldName(name); folded[f] {
			return nil, fmt.Errorf("member %q appears twice", name)
		} else {
			folded[f] = true
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		fields[name] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the object")
	}
	return fields, nil
}

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInput, fmt.Sprintf(format, args...))
}
