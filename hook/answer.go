package hook

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/escape"
)

// Answer is what the hook process does: write Stdout and Stderr, then exit
// with Code.
type Answer struct {
	Stdout, Stderr []byte
	Code           int
}

// allow is the answer to an allowed call: silence, so the person's own
// permission rules still apply; Cursor (configured with failClosed, where
// silence blocks) gets its allow form.
func allow(h Harness) Answer {
	if h == Cursor {
		return Answer{Stdout: []byte(`{"permission":"allow"}` + "\n")}
	}
	return Answer{}
}

// quiet is the answer to a post-tool event: nothing, exit 0 (it never
// blocks, and Cursor reads no decision from it).
func quiet(msg string) Answer {
	if msg == "" {
		return Answer{}
	}
	return Answer{Stderr: []byte(msg + "\n")}
}

// Deny returns harness h's deny answer with reason (made one line here).
// ev may be nil (an event that could not be read): the answer then takes
// the form of h's pre-tool event. Every answer also writes the reason on
// standard error.
//
//   - claude: hookSpecificOutput with hookEventName (without it Claude Code
//     ignores the deny), permissionDecision "deny" and
//     permissionDecisionReason on stdout, and exit status 2, which blocks
//     whatever the JSON says.
//   - codex, gemini: exit status 2 with the reason on stderr (both ignore
//     an exit 2 with nothing on stderr).
//   - cursor: {"permission":"deny","user_message","agent_message"} (the
//     model reads user_message), exit status 0.
//   - copilot: {"permissionDecision":"deny","permissionDecisionReason"},
//     exit status 0 (Copilot skips a hook that exits otherwise); the
//     Claude-compatible form gets Claude's hookSpecificOutput as well.
func Deny(h Harness, ev *event, reason string) Answer {
	reason = oneLine(reason)
	a := Answer{Stderr: []byte(reason + "\n")}
	switch h {
	case Claude:
		a.Stdout, a.Code = claudeDeny(reason), 2
	case Codex, Gemini:
		a.Code = 2
	case Cursor:
		a.Stdout = marshal(map[string]string{"permission": "deny", "user_message": reason, "agent_message": reason})
	case Copilot:
		if ev == nil || ev.Pascal {
			a.Stdout = marshal(struct {
				Specific           specific `json:"hookSpecificOutput"`
				PermissionDecision string   `json:"permissionDecision"`
				Reason             string   `json:"permissionDecisionReason"`
			}{specific{"PreToolUse", "deny", reason}, "deny", reason})
		} else {
			a.Stdout = marshal(struct {
				PermissionDecision string `json:"permissionDecision"`
				Reason             string `json:"permissionDecisionReason"`
			}{"deny", reason})
		}
	default:
		a.Code = 2
	}
	return a
}

type specific struct {
	HookEventName      string `json:"hookEventName"`
	PermissionDecision string `json:"permissionDecision"`
	Reason             string `json:"permissionDecisionReason"`
}

func claudeDeny(reason string) []byte {
	return marshal(struct {
		Specific specific `json:"hookSpecificOutput"`
	}{specific{"PreToolUse", "deny", reason}})
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil { // strings and structs of strings always marshal
		panic(err)
	}
	return append(b, '\n')
}

// oneLine returns s on one line of at most maxReasonBytes (and "…"):
// control and format characters (line breaks, escapes, bidirectional
// overrides) are escaped as escape.Controls writes them for every log
// and message, so a reason never forges a line or hides text.
func oneLine(s string) string {
	b := escape.Controls(nil, []byte(s))
	if len(b) <= maxReasonBytes {
		return string(b)
	}
	cut := maxReasonBytes
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}
