package hook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tickettool/tickettool/internal/argsubject"
)

// patchHeaders are the lines of a Codex apply_patch text that name a
// file: added, updated, deleted, and a move's destination (its source is
// the Update File line before it).
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// patchPaths returns every file an apply_patch call touches, absolute
// against the event's cwd. Codex passes the whole patch text as
// tool_input.command (a string, or an argv whose last word is the
// patch). A patch that names no file is refused: the hook cannot say what
// it writes.
func patchPaths(ev *event) ([]string, error) {
	text, err := patchText(ev.Input)
	if err != nil {
		return nil, err
	}
	var raw []string
	for line := range strings.SplitSeq(text, "\n") {
		// Codex trims whitespace around a hunk's header line but reads a
		// move's line as it is, and keeps the path's own leading spaces
		// (" /etc/x" is relative): each path is read in both forms, as
		// Codex may, and each is checked.
		line = strings.TrimSuffix(line, "\r")
		forms := []string{line}
		if t := strings.TrimSpace(line); t != line {
			forms = append(forms, t)
		}
		for _, form := range forms {
			for _, h := range patchHeaders {
				if p, ok := strings.CutPrefix(form, h); ok {
					raw = append(raw, p)
				}
			}
		}
		if len(raw) > maxPatchPaths {
			return nil, fmt.Errorf("apply_patch: more than %d files", maxPatchPaths)
		}
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("apply_patch: the patch names no file (*** Add File:, *** Update File:, *** Delete File:)")
	}
	return absPaths(raw, ev.Cwd)
}

func patchText(in map[string]json.RawMessage) (string, error) {
	for _, name := range []string{"command", "patch", "input"} {
		raw, ok := argsubject.Present(in, name)
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, nil
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
			return strings.Join(argv, "\n"), nil
		}
		return "", fmt.Errorf("apply_patch: %s must be a string or an array of strings", name)
	}
	return "", fmt.Errorf("apply_patch: the input holds no patch (command)")
}

// promptURLs returns the URLs Gemini's web_fetch takes from its prompt:
// every whitespace-separated word holding "://", whole (its parsePrompt
// splits on JavaScript's \s and hands each such word to the WHATWG URL
// parser, which reads "https://a.example.com)@b.example" as a URL of
// host b.example). A word that is not an http or https URL is refused by
// the hosts caveat, as Gemini refuses it.
func promptURLs(prompt string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(prompt, jsSpace) {
		if strings.Contains(w, "://") {
			out = append(out, w)
		}
	}
	return out
}

// jsSpace reports whether r is matched by JavaScript's \s.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// fetchURLs returns the URLs a fetch call asks for: its URL fields, and
// for Gemini's web_fetch every URL in its prompt. A fetch that names none
// is refused: the tool might still find one where the hook does not look.
func fetchURLs(ev *event, b builtin) ([]string, error) {
	urls, _, err := argsubject.Extract(argsubject.Spec{Paths: b.fields}, ev.Input)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %s", ev.Tool, strings.TrimPrefix(err.Error(), "argsubject: "))
	}
	if ev.Harness == Gemini {
		prompt, err := inputString(ev.Input, "prompt")
		if err != nil {
			return nil, fmt.Errorf("tool %s: %v", ev.Tool, err)
		}
		found := promptURLs(prompt)
		if len(found) > maxURLsInPrompt {
			return nil, fmt.Errorf("tool %s: more than %d URLs in the prompt", ev.Tool, maxURLsInPrompt)
		}
		urls = append(urls, found...)
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("tool %s names no http:// or https:// URL", ev.Tool)
	}
	return urls, nil
}
