package mcp

import "time"

// Limits and defaults. All numeric policy of the package lives here.
const (
	// DefaultMaxMessageBytes bounds one newline-delimited JSON-RPC message,
	// its newline included, in either direction when Config.MaxMessageBytes
	// is zero. The reference TypeScript SDK (1.32, shared/stdio.js
	// ReadBuffer) closes its stdio transport when the unread part of a
	// message plus the pipe read that brings its end (up to 64 KiB) passes
	// 10 MiB, so a message of up to 10 MiB - 64 KiB is the most that always
	// reaches the server (or a TypeScript agent) intact. A longer line is
	// discarded as it streams past, never buffered whole, and a request in
	// it is answered with an error.
	DefaultMaxMessageBytes = 10<<20 - 64<<10

	// sniffBytes is how much of a line that is too long or not JSON is kept
	// to look for the id of a request to answer.
	sniffBytes = 4 << 10

	// maxTracked bounds each table of request ids the proxy remembers
	// and may forget (server→client roots/list requests, refused tools/call
	// ids whose cancellation is dropped). When full, the oldest entry is
	// forgotten: a forgotten roots answer is still filtered (every answer
	// carrying roots is), and a forgotten refused id lets its cancellation
	// reach the server, which ignores a cancellation for an id it never
	// saw. The agent's pending requests are never forgotten (maxPending).
	maxTracked = 4096

	// maxIDBytes bounds a request id from the agent (a longer one is
	// refused), and the id and method of a line too long to keep that the
	// proxy remembers while the line streams past.
	maxIDBytes = 256

	// maxPending bounds the agent's requests awaiting the server's answer
	// (or waiting to be checked) in one session; one more is answered with
	// an error at once. Nothing is forgotten: an answer must always be
	// matched to the request it answers.
	maxPending = 4096

	// maxQueuedBytes bounds the bytes of the tools/call requests of one
	// session waiting to be checked (held about four times over once
	// parsed); one more is answered with an error.
	maxQueuedBytes = 32 << 20

	// maxQueuedCalls bounds the tools/call requests of one session waiting
	// for the calls in flight (see gate); one more is answered with an
	// error at once.
	maxQueuedCalls = 1024

	// DefaultHold is how long an allowed call's budgets stay reserved when
	// the server never answers it (it died, or the session ended first):
	// until then an answer showing the call never ran gives them back;
	// after, they count as spent.
	DefaultHold = 10 * time.Minute

	// StoreTimeout bounds one step of the store (an admission, a
	// settlement): a store that does not answer in time refuses the call.
	StoreTimeout = 10 * time.Second

	// DefaultGateTimeout is how long a tools/call waits for the calls in
	// flight before it is answered with an error instead of being checked,
	// when Config.GateTimeout is zero.
	DefaultGateTimeout = 2 * time.Minute

	// maxLogLine bounds one line of the server's stderr as the proxy passes
	// it on; a longer one is passed on in pieces.
	maxLogLine = 64 << 10

	// ShutdownGrace is how long [Run] waits for the server to exit after the
	// agent closed its input (the server's stdin is closed at once) before
	// it sends SIGTERM to the server's process group, as the MCP stdio
	// transport's shutdown sequence describes.
	ShutdownGrace = 5 * time.Second

	// KillGrace is how long [Run] waits after SIGTERM before SIGKILL.
	KillGrace = 2 * time.Second

	// drainGrace is how long Run keeps reading the server's output after
	// the server exited, for messages it wrote just before.
	drainGrace = time.Second
)

// Limits of multi round-trip calls (see continuation).
const (
	// continuationTTL is how long an admission waits for its call's retry
	// after an input-required answer (at most Config.Hold): a person may
	// take a while to answer an elicitation.
	continuationTTL = 5 * time.Minute

	// maxContinuations bounds the admissions one session keeps for
	// retries; past it an input-required answer settles its call.
	maxContinuations = 256

	// maxRequestStateBytes bounds a requestState the guard remembers.
	maxRequestStateBytes = 64 << 10
)

// Limits of the Streamable HTTP upstream (Proxy.ServeUpstream).
const (
	// maxListenRetries bounds how many times in a row the session's GET
	// stream is opened again without bringing a message.
	maxListenRetries = 5

	// listenBackoff is the wait before the GET stream is opened again.
	listenBackoff = time.Second

	// maxResumes bounds how many times in a row a request's stream the
	// server closed before its answer (2025-11-25) is resumed without a
	// new event; then the call's answer counts as lost.
	maxResumes = 5

	// maxResumeWait bounds the retry a stream may ask the guard to wait
	// before it resumes the stream.
	maxResumeWait = 30 * time.Second

	// maxReinits bounds the new sessions one relay starts when the server
	// forgets its session (404): a server that forgets every session at
	// once is not followed for ever.
	maxReinits = 16
)

// maxSafeInteger is 2^53 - 1, the largest integer a JavaScript number holds
// exactly (Number.MAX_SAFE_INTEGER): the bound of a request id the agent
// and the server read alike.
const maxSafeInteger = 1<<53 - 1

// Limits of the discharge directory (Config.DischargeDir).
const (
	// maxDischargeFiles bounds the *.dis files read for one call, those
	// the guard announced for it first; the rest are counted, not read.
	maxDischargeFiles = 256

	// maxDischargeFileBytes bounds what is read of one *.dis file: a
	// few discharges, one per line.
	maxDischargeFileBytes = 64 << 10

	// maxArgsFiles bounds the argument files (CODE-HEX.json) the guard
	// keeps in the discharge directory, one per refused call that needs
	// an approval: past it, the oldest by modification time are removed.
	maxArgsFiles = 64

	// maxAnnouncedNames bounds the discharge file names the guard may
	// announce for one refused call (NAME.dis, NAME-2.dis, ...): a new
	// name when the earlier ones are taken (by a discharge already used,
	// say), since approve --out never replaces a file.
	maxAnnouncedNames = 9

	// maxInlineArgs bounds the arguments a refusal quotes in its approve
	// command (without a discharge directory); longer ones are named
	// @ARGS.json.
	maxInlineArgs = 1024
)

// Limits of the Streamable HTTP listener (Proxy.ListenHandler).
const (
	// maxListenSessions bounds the 2025-11-25 sessions open at once, each
	// a relay with a server of its own (a process, for a stdio server);
	// one more initialize is answered 503.
	maxListenSessions = 64

	// listenBacklog bounds the messages held for one request's stream, or
	// for a session's GET stream, that its client has not read yet: past
	// it, progress and the server's own messages are dropped (never an
	// answer, which always has room).
	listenBacklog = 256

	// senderIdle is how long a goroutine that sent a message to a
	// Streamable HTTP server waits for the next before it ends.
	senderIdle = 10 * time.Second

	// ListenIdle is how long a 2025-11-25 session of the listener may go
	// without a request, an answer pending or its GET stream open before
	// the guard ends it (its server stopped, its calls settled); its next
	// request gets 404, and the client starts a new session, as the
	// transport specifies. Abandoned sessions would otherwise hold their
	// servers, and the session limit, for ever.
	ListenIdle = 30 * time.Minute
)

// maxClientTickets bounds the client tickets a listener with
// Listen.Clients serves at once (each a proxy, its sessions and a relay);
// past it, tickets without a relay running are forgotten, and a new one
// is refused with 503 while none is.
const maxClientTickets = 256
