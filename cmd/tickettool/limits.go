package main

import "time"

// Limits of what the CLI reads.
const (
	// maxInputBytes bounds anything read from standard input or a small
	// file: tickets (- or @PATH), proofs, JWKs, checkpoints and
	// revocation lists.
	maxInputBytes = 1 << 20

	// maxPathBytes bounds an argument that fileHint looks up as a file
	// name: a longer one is no file name anyone typed.
	maxPathBytes = 4096

	// maxEchoBytes bounds how much of a command-line value a message
	// quotes.
	maxEchoBytes = 256
)

// When a long job shows its progress on a terminal (receipt verify).
const (
	// progressEvery is the least time between two updates of the line.
	progressEvery = 200 * time.Millisecond

	// progressAfter is how long a job runs before the line appears...
	progressAfter = time.Second

	// ...unless it reads at least progressLargeBytes, when it appears at
	// once (about 100,000 receipts).
	progressLargeBytes = 32 << 20
)

// Limits and margins of the store commands (revoke, spent, and the store
// flag verify and mcp share).
const (
	// storeTimeout bounds one command's work with its store: opening it
	// and every step, including the wait for a SQLite file's write lock
	// while other processes use it. A store that does not answer by then
	// refuses.
	storeTimeout = 30 * time.Second

	// revokeMargin is how long after block 0's until caveat a ticket's
	// revocation is kept. A store may forget a revocation once no ticket
	// of the family can be admitted, which is block 0's until plus the
	// verifier's --skew: so a verifier whose --skew is larger than this
	// could admit a revoked ticket after the store forgot it.
	revokeMargin = 24 * time.Hour

	// storeDirMode is the mode of directories openStore creates above a
	// SQLite file: only the owner may list or add files beside the store.
	storeDirMode = 0o700
)

// Limits of approvals (spec/FORMAT.md §4.6 and §6).
const (
	// maxApprovals bounds the approval caveats of one ticket (a ticket
	// with more is malformed).
	maxApprovals = 4

	// defaultApproveUntil is how long a discharge from approve lives
	// unless --until says otherwise: an approval is for now.
	defaultApproveUntil = 10 * time.Minute

	// maxApproveUntil is the longest --until: a verifier refuses a
	// discharge that lives longer (spec/FORMAT.md §7 step 6a).
	maxApproveUntil = 24 * time.Hour

	// maxDischarges bounds the discharges of one request (a verifier
	// refuses more as malformed input).
	maxDischarges = 8

	// maxAnswerBytes bounds the answer read from the terminal.
	maxAnswerBytes = 64
)

// requestTimeout bounds 'tickettool request' from the first byte sent to
// the last byte of the response body, its one nonce retry included.
const requestTimeout = 60 * time.Second

// The proxy's limits.
const (
	// proxyShutdownTimeout is how long a stopping proxy waits for the
	// requests in flight to finish and settle.
	proxyShutdownTimeout = 30 * time.Second

	// proxyHeaderTimeout is --header-timeout's default: how long a
	// client may take to send its request headers.
	proxyHeaderTimeout = 10 * time.Second

	// proxyIdleTimeout is how long a kept-alive connection may wait for
	// its next request.
	proxyIdleTimeout = 2 * time.Minute

	// proxyMaxHeaderBytes bounds a request's headers: room for the
	// longest ticket, proof and discharges (dpophttp.MaxHeaderBytes) and
	// the rest.
	proxyMaxHeaderBytes = 1 << 20

	// maxQueuedLog bounds the decision lines queued for the batched
	// log, in bytes; past it a writer waits for the batch in progress.
	maxQueuedLog = 1 << 20
)

// proxyGCPercent is the proxy's GOGC when the environment sets none.
const proxyGCPercent = 400
