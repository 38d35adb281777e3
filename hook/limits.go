package hook

import "time"

// Limits. All numeric policy of the package lives here.
const (
	// MaxEventBytes bounds the event read from standard input: a Codex
	// apply_patch event carries the whole patch text.
	MaxEventBytes = 16 << 20

	// StoreTimeout bounds the hook's work with its store (opening it and
	// admitting the call, together), well inside the shortest harness
	// timeout (Copilot's 30 s default): a store that does not answer in
	// time refuses the call.
	StoreTimeout = 8 * time.Second

	// InputTimeout bounds the wait for the whole event on standard
	// input: a harness that never closes it gets a refusal, not a hook
	// that hangs until the harness gives up on it (and runs the tool).
	InputTimeout = 5 * time.Second

	// maxReasonBytes bounds the one-line reason of a refusal.
	maxReasonBytes = 2048

	// maxURLsInPrompt bounds the URLs taken from a Gemini web_fetch prompt
	// (the tool itself fetches at most 20).
	maxURLsInPrompt = 64

	// maxPatchPaths bounds the file paths of one apply_patch.
	maxPatchPaths = 1024
)

// maxTicketFileBytes bounds a ticket file.
const maxTicketFileBytes = 1 << 20
