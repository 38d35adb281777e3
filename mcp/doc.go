// Package mcp is the MCP guard: a transparent stdio proxy between an agent
// (an MCP client) and an MCP server that enforces a ticket on every tool
// call. It speaks newline-delimited JSON-RPC on both sides and rebuilds no
// client or server: every message it does not act on passes through byte
// for byte, whatever its fields and whatever protocol version the two ends
// negotiate.
//
// # What the proxy acts on
//
// From the agent:
//
//   - tools/call is checked with guard.Guard before it is forwarded (the
//     ticket's chain and narrowing were verified once, by New or
//     SetTicket; revocation, expiry, the caveats and the budgets are
//     checked for each call): Request.Tool is the tool's name, qualified as NAME/tool when
//     Config.ServerName is set; Request.Op is "invoke"; the paths and URLs
//     are the arguments the [Profile] names (Filesystem() by default), each
//     path also checked where it leads through symbolic links, a missing
//     name matched by Unicode NFC form as the reference filesystem server
//     matches it (a name with several matches is refused); Audience is
//     Config.Audience. A bound ticket's holder key is Config.Holder, held
//     by the proxy itself: possession is checked once, when the ticket is
//     set, and calls carry no DPoP proof (none travels). One receipt per decision is durable before
//     Check returns, so before an allowed call is forwarded. An allowed
//     call's budgets are reserved in Config.Store and settled by the
//     server's answer: captured by a result (an isError result too: the
//     call ran) or an error that does not show it never ran, released by a
//     parse error, invalid request, method not found or invalid params; a
//     call still unanswered when the session ends is captured then (no
//     answer can come to show it never ran), and one whose settlement fails
//     stays reserved until Config.Hold ends, then counts as spent. Each
//     settlement is a receipt too. A refused call
//     never reaches the server; the agent gets a result with isError and one
//     text block, [RefusalPrefix] followed by every verify.Refusal.String,
//     joined by "; ". A well-formed call the guard cannot check as it
//     stands (SEP-1303: a refusal the model can act on) is refused the same
//     way, with a receipt whose check is guard.CheckRequest: a subject
//     argument of the wrong type, a relative path under a profile with
//     AbsolutePaths, a name matching several entries by NFC form, a
//     task-augmented call. A call that is not a well-formed request
//     (params or arguments not an object, a name that is not a string,
//     params that repeat a member name under case folding, arguments
//     holding an object, at any depth, with two member names equal under
//     case folding: spec/CAVEATS.md, "The args digest") gets a JSON-RPC
//     invalid-params error and no receipt; a call whose receipt cannot be
//     written gets an internal error. A tools/call without an id is
//     dropped.
//   - Multi round-trip calls (2026-07-28): an allowed call the server
//     answers with an input-required result carrying a requestState is
//     not settled; the retry that echoes that requestState, for the same
//     tool with arguments of the same args digest, within five minutes
//     (at most Config.Hold), continues its admission: forwarded without a
//     new check or charge, and settled by its own answer, so the call is
//     one allowed record and one settlement. A remembered state is used
//     once; any other retry is a new call. An admission whose retry never
//     comes is captured when its state expires or the session ends.
//   - Approvals: every tools/call carries Request.Args, the args digest
//     of params.arguments ("{}" when absent, null when null; none when
//     caveat.ArgsDigest refuses them). For a ticket with approval caveats,
//     Config.DischargeDir is read anew on each call and the call carries,
//     per approval, at most one discharge whose binding is the approval's
//     (spec/FORMAT.md §7). A call refused for an approval gets, after the
//     refusals, who must approve (key id, location, code) and the exact
//     'tickettool approve' command; with a discharge directory its
//     arguments are first written there (see Config.DischargeDir).
//   - Retries: a tools/call whose params._meta holds OperationMeta (the
//     agent's operation key) is an operation of the ticket's family
//     (guard.OperationStore): its answer is kept in the store before the
//     agent gets it, and a repeat of the same call under the key gets it
//     back without reaching the server or being charged; the key with
//     another call, or while the first runs, gets an isError result.
//   - tools/call requests are checked in the order they came, against what
//     the server has done: a call to a tool the profile does not mark
//     ReadOnly is forwarded only when no call is in flight, and while it is
//     in flight (until the server's answer to its id) no other call is
//     checked; read-only calls are in flight together. Other messages are
//     not held back. A call that waits longer than Config.GateTimeout is
//     answered with an error.
//   - A tools/call to a tool marked ListsDirectories (the filesystem
//     server's list_allowed_directories) is checked as touching the ticket's
//     narrowest paths, and its answer keeps only what lies inside them.
//   - notifications/cancelled for a call the proxy answered or has not yet
//     checked is dropped (the server never saw that id), and so is one for a
//     call in flight: the server would run it to its end without answering,
//     and the order above needs the answer. The exception is a call sent
//     to a Streamable HTTP server under protocol 2026-07-28, which has a
//     stream of its own: its cancellation closes that stream (how that
//     revision cancels), and the call's outcome is unknown — held, then
//     captured, the agent told it counts as spent — as when a stream
//     breaks.
//   - A response (the agent's answer to a server request) whose result
//     holds roots, and the roots in params.inputResponses of any request
//     (multi round-trip requests, protocol 2026-07-28), keep only the
//     file:// roots inside the ticket's paths (as given and as resolved);
//     the others are dropped, not narrowed. A reference filesystem server
//     replaces its directories with the client's roots, so unfiltered roots
//     would widen its sandbox. notifications/roots/list_changed is
//     forwarded: the answer the server then asks for is what is filtered.
//   - Every message from the agent must be one JSON object whose member
//     names are unique under case folding, and in which no member at the
//     message, params or subject-argument level is a name the proxy reads
//     spelled in another case ("Method", "Arguments", "paſs"); else it is
//     answered with an error and not forwarded, so no server, however it
//     decodes, sees a member the proxy did not check.
//
// From the server: responses to the agent's tools/list requests keep only
// the tools the ticket's tools caveats name (a courtesy: the call check is
// the enforcement), and roots/list requests are tracked so their answers
// are filtered.
//
// Request ids are tracked per direction (ids may collide across
// directions) and numeric ids are normalised (1.0 is 1, "1" is not). Every
// request of the agent's is pending under its id until the server answers
// it; a second request with a pending id is refused, so an answer is never
// taken for another request's. A request of the agent's must be JSON-RPC
// 2.0 with no other top-level member, and its id a string of at most 256
// bytes without U+FFFD or an integer within ±(2^53 - 1), since a
// JavaScript server reads other ids otherwise than Go.
// Rewriting a message re-encodes only that message and keeps every other
// member of it. Either side: a JSON array (a batch) is refused, each request
// in it answered with an invalid-request error on a line of its own; a line
// longer than Config.MaxMessageBytes (DefaultMaxMessageBytes) or that is not
// a JSON object is discarded without being buffered whole, and answered with
// an error only when it visibly is a request with an id (for a line too
// long, its top level is scanned as it streams past, so an id after a huge
// params is found); an answer from the server too long to pass on becomes
// an error to the agent. Everything dropped is logged to Config.Log, and
// every line the proxy logs, like every line of the server's stderr, has
// its control characters escaped.
//
// Not checked: resources/read, prompts/get and every other method pass
// through; a ticket governs tool calls.
//
// # Using it from a command
//
// Proxy.Run starts the server and returns its exit status; the package
// function [Run] is [New] and [Proxy.Run] in one. The CLI command is flag
// parsing, the key and ticket helpers cmd/tickettool already has, and
// this (error checks elided):
//
//	keys, _ := token.NewKeyring(vk)
//	cfg := mcp.Config{Ticket: ticket, Keys: keys, Options: opts, ServerName: *serverName, Log: stderr}
//	p, err := mcp.New(cfg) // a *StartError: the ticket can never allow a call
//	hup := make(chan os.Signal, 1)
//	signal.Notify(hup, syscall.SIGHUP)
//	go func() {
//		for range hup {
//			t, _ := readTicketFile(*ticketFile)
//			if err := p.SetTicket(t); err != nil {
//				log.Printf("kept the old ticket: %v", err)
//			}
//		}
//	}()
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	cmd := exec.Command(pos[0], pos[1:]...) // the words after "--"
//	code, err := p.Run(ctx, os.Stdin, os.Stdout, cmd)
//	return exit code (the server's status, 128+N for signal N)
//
// SetTicket replaces the ticket while the proxy serves, after the checks
// New makes; a ticket they refuse leaves the old one in force.
//
// Proxy.Serve runs the same proxy over streams the caller provides (tests,
// or a server that is not a child process).
// Proxy.ServeUpstream runs it between the agent's streams and a remote
// server over Streamable HTTP ([Upstream]: revisions 2025-11-25 and
// 2026-07-28, the server's own credentials in Upstream.Header, never the
// ticket).
// Proxy.ListenHandler serves agents over Streamable HTTP instead of
// stdio ([Listen]: Origin and Host checked against DNS rebinding,
// MCP-Protocol-Version checked, a 2026-07-28 header that disagrees with
// its body refused with 400 and -32020 first), each session relayed to a
// stdio or HTTP server of its own. The ticket is the proxy's, or, with
// Config.ClientTickets and Listen.Clients (package dpophttp), each
// request's own: every call is decided under the ticket and DPoP proof of
// the request that carries it, budgets shared through the store.
//
// # Profiles
//
// A [Profile] names the subject-carrying arguments of a server's tools.
// Filesystem() is the default; ParseProfile reads the JSON text form
// (JSON pointers to path, URL and host arguments) that Profile.String
// writes, and ShippedProfile returns the profiles shipped in profiles/ for
// the reference servers the guard is tested with.
//
// # One policy, every transport
//
// Everything above is decided by a [Session] (Proxy.NewSession), on whole
// JSON-RPC messages, whatever carries them: it answers each message with a
// [Step] saying what to send to the server and to the agent, and hands
// back each tools/call for [Session.Admit], which waits for the gate and
// decides it. The stdio proxy, the Streamable HTTP upstream and the
// listener only move bytes between their streams and a Session, so every
// transport makes the same decisions with the same receipts.
package mcp
