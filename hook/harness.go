package hook

import (
	"errors"
	"fmt"
)

// Harness is a coding agent whose pre-tool hook the package answers.
type Harness uint8

// The harnesses.
const (
	Claude  Harness = iota + 1 // Claude Code
	Codex                      // OpenAI Codex CLI
	Gemini                     // Gemini CLI
	Cursor                     // Cursor
	Copilot                    // GitHub Copilot CLI and coding agent (both input forms)
)

var harnessNames = [...]string{Claude: "claude", Codex: "codex", Gemini: "gemini", Cursor: "cursor", Copilot: "copilot"}

// Harnesses lists every harness, in a stable order.
func Harnesses() []Harness { return []Harness{Claude, Codex, Gemini, Cursor, Copilot} }

// ErrUnknownHarness is matched by ParseHarness's error.
var ErrUnknownHarness = errors.New("hook: unknown harness")

// ParseHarness reads a harness name as String writes it.
func ParseHarness(s string) (Harness, error) {
	for _, h := range Harnesses() {
		if harnessNames[h] == s {
			return h, nil
		}
	}
	return 0, fmt.Errorf("%w %q: want claude, codex, gemini, cursor or copilot", ErrUnknownHarness, s)
}

// String returns the harness's name: "claude", "codex", ...
func (h Harness) String() string {
	if h >= Claude && h <= Copilot {
		return harnessNames[h]
	}
	return fmt.Sprintf("Harness(%d)", uint8(h))
}
