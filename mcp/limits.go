package mcp

import "time"

// Limits and defaults. All numeric policy of the package lives here.
const (
	// DefaultMaxMessageBytes bounds one newline-delimited JSON-RPC message
	// in either direction when Config.MaxMessageBytes is zero (the official
	// SDKs use the same 16 MiB). A longer line is discarded as it streams
	// past, never buffered whole.
	DefaultMaxMessageBytes = 16 << 20

	// sniffBytes is how much of a line that is too long or not JSON is kept
	// to look for the id of a request to answer.
	sniffBytes = 4 << 10

	// maxTracked bounds each table of request ids the proxy remembers
	// (tools/list requests awaiting their response, server→client roots/list
	// requests, refused tools/call ids whose cancellation is dropped). When
	// full, the oldest entry is forgotten: a forgotten tools/list response
	// passes unfiltered (hiding tools is a courtesy), a forgotten roots
	// answer is still filtered (every answer carrying roots is), and a
	// forgotten refused id lets its cancellation reach the server, which
	// ignores a cancellation for an id it never saw.
	maxTracked = 4096

	// maxLinkHops bounds the symbolic links followed when resolving one path,
	// as the kernel's ELOOP does.
	maxLinkHops = 40

	// ShutdownGrace is how long Run waits for the server to exit after the
	// agent closed its input (the server's stdin is closed at once) before
	// it sends SIGTERM to the server's process group, as the MCP stdio
	// transport's shutdown sequence describes.
	ShutdownGrace = 5 * time.Second

	// KillGrace is how long Run waits after SIGTERM before SIGKILL.
	KillGrace = 2 * time.Second

	// drainGrace is how long Run keeps reading the server's output after
	// the server exited, for messages it wrote just before.
	drainGrace = time.Second
)
