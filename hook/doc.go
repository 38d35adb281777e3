// Package hook is the ticket's enforcement point at a coding agent's own
// tools: the pre-tool hooks of Claude Code, Codex, Gemini CLI, Cursor and
// GitHub Copilot. A harness runs a command before each tool call and lets
// it deny the call; [Decide] reads that one event, turns it into a
// [caveat.Request] through one tool table shared by every harness (so one
// ticket means the same thing in each), asks the [guard.Guard] (verify,
// admit in the store, write the receipt), and answers in the harness's own
// language.
//
// Allowed means silence: exit status 0 and nothing on standard output, so
// the person's own permission rules still apply (an "allow" answer would
// skip Claude Code's permission prompt, and Codex treats one as an error).
// The one exception is Cursor, whose hooks are configured with
// failClosed, where an empty answer blocks: there the answer is Cursor's
// allow form.
//
// Refused means the harness's deny form with one line saying why. Every
// error of the hook itself (input it cannot read, a tool it does not know,
// a ticket that cannot be read or verified, a store or receipt log that
// fails, a panic) is a refusal too: almost every harness lets the tool run
// when a hook crashes, times out or answers nonsense, so the hook fails
// closed in the harness's language.
//
// Budgets are charged at the pre-tool event ("calls authorised"): several
// harnesses never report a call another hook or the person declined, so a
// post-tool event is recorded as a receipt and never gives a budget back.
//
// A hook is a guardrail, not a sandbox: a shell can read and write any
// file, so a ticket that scopes paths or hosts refuses shell tools unless
// its tools caveat names them.
package hook
