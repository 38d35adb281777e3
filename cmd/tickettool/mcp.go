package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/mcp"
	"github.com/tickettool/tickettool/token"
)

const mcpUsage = `
usage: tickettool mcp (--ticket-file PATH | --ticket TICKET | --listen ADDR --client-tickets) --key PATH
                      [--server-name NAME] [--holder-key HOLDER]
                      [--receipts LOG --receipt-key PATH]
                      [--aud NAME] [--revoked FILE] [--require-expiry]
                      [--max-lifetime DURATION] [--require-holder]
                      [--skew DURATION] [--modes MODES] [--store LOCATION]
                      [--discharge-dir DIR] [--profile NAME | --profile-file FILE]
                      [--listen ADDR [--listen-non-loopback] [--allow-origin ORIGIN]...
                       [--client-tickets [--public-url URL]]]
                      (-- COMMAND [ARG...] | --upstream URL [--upstream-header-file FILE])

Starts COMMAND as an MCP server and speaks MCP (newline-delimited JSON-RPC)
to the agent on standard input and output, forwarding between them and
enforcing the ticket on every tools/call: tool, operation, budgets, expiry,
and every path or URL argument (mapped by the reference filesystem
server's profile). A refused call never reaches the server; the agent gets
a tool result with isError naming the block and caveat. Everything else
passes through byte for byte. With --receipts, one signed receipt per
decision is written durably before an allowed call is forwarded, and one
per settlement. An allowed call's budgets are reserved in the store (so a
restarted guard, or a second one on the same store, continues the same
budgets) and settled by the server's answer: spent when it answers with a
result, given back when its error shows the call never ran. A bound
ticket needs --holder-key: the guard makes the DPoP proof for each call
(htm POST, htu mcp://NAME/TOOL). The exit status is the server's;
SIGINT or SIGTERM stops the server too, prints one line, and exits with
130 or 143 (128 plus the signal's number).

The ticket comes from exactly one of: --ticket-file PATH (whitespace
around the ticket is trimmed), the environment variable TICKETTOOL_TICKET
(which the server does not inherit), or --ticket TICKET (which every local
user can read with ps: avoid it; --ticket @PATH is --ticket-file PATH).
With --ticket-file, SIGHUP re-reads the
file: a good ticket replaces the old one for the next call; a bad one
(unreadable, malformed, or refused as below) leaves the old one in force.
Either way one line on standard error says which.

A ticket that can never allow a call is refused before the server starts
(exit status 1; 2 when only --server-name is missing): expired, under another key, revoked, against the policy,
an aud caveat without this guard's audience (--aud, by default the
--server-name), or tools caveats naming only tools of other servers (with
--server-name fs, tools=fs/read_file and tools=read_file are this
server's). A ticket that is only not yet valid (nbf) starts.

Which arguments of which tool are paths, URLs or hosts is the server's
profile: the reference filesystem server's by default, --profile NAME
for another shipped one (filesystem, everything), or --profile-file FILE
(JSON: per tool, JSON pointers into the arguments; mcp/profiles/ holds
the shipped ones). Under a ticket with a paths or hosts caveat, a tool the
profile does not know is refused.

A ticket with approval caveats (mint --approval) needs a discharge for
each approval on every call: --discharge-dir DIR is where they are
dropped, as files named *.dis (one discharge per line, as approve prints
them). DIR is read anew on each call to such a ticket, so a discharge
counts from the next call on, without a restart: at most 256 files per
call, those named for the call first; a file of expired discharges only
is removed, and a refusal says how many files were skipped and why. The
guard computes every call's args digest (of params.arguments, {} when
absent, null when null) for args caveats. A call refused for an approval tells the agent who must approve
(key id, location, code) and the exact 'tickettool approve' command to
run; with --discharge-dir the guard first writes the call's arguments to
DIR/CODE-HEX.json (mode 0600), and the command reads them with --args
@FILE and writes its discharge with --out DIR/CODE-HEX.dis (never a
shell redirect: approve creates the file and refuses one, or a link,
already there; a name taken gets -2, -3, ... before .dis). The command
names the ticket as @PATH of --ticket-file, "$TICKETTOOL_TICKET", or
TICKET.

With --upstream URL instead of a command, the server is a remote one,
reached over Streamable HTTP (MCP 2025-11-25 with its session, or
2026-07-28 without, as each of the agent's requests asks; other revisions
are refused with a clear error), with every check above. Its own
credentials come from --upstream-header-file FILE ("Name: value" lines;
# comments) or the environment variable TICKETTOOL_UPSTREAM_AUTHORIZATION
(the Authorization header), never from the command line; the ticket and
its proofs never reach it. Messages the server streams (progress) reach
the agent as they come; a stream that breaks before its answer counts the
call as spent.

With --listen ADDR (HOST:PORT) the guard speaks MCP to its agents over
Streamable HTTP instead of standard input and output, at http://ADDR/ (any
path), with every check above: each 2025-11-25 session (an initialize
without Mcp-Session-Id) gets a server of its own (a process, for a
COMMAND), and 2026-07-28 requests share one. ADDR must be a loopback
address (127.0.0.1, [::1], localhost) unless --listen-non-loopback says
otherwise, with a warning: every client that reaches it acts with the
guard's ticket. A request with an Origin other than the listener's own
(or an --allow-origin ORIGIN, scheme://host[:port]), or, on loopback,
with a Host that does not name the loopback, is refused with 403: a web
page cannot reach the guard through DNS rebinding. MCP-Protocol-Version
must be the session's; under 2026-07-28 MCP-Protocol-Version, Mcp-Method
and Mcp-Name must equal the body's, or the request is refused with 400
and -32020 before anything else.

With --client-tickets the guard has no ticket of its own: each request of
each client presents the client's, bound to the client's own key, as
"Authorization: DPoP TICKET" with a DPoP proof (RFC 9449; htu the public
URL, --public-url, by default http://ADDR as bound, followed by the
path), with the server's nonces; a request without one gets the DPoP
challenge. Each tools/call is decided as above under the ticket, proof
and Ticket-Discharge headers (then --discharge-dir's discharges) of the
request that carries it, in one step with its budgets
(every ticket of a family shares them, through --store across guards);
any other request needs its ticket valid and its proof never used
before. A session started under one ticket takes no request under
another.

` + policyUsage + `
` + storeUsage + `
Example:
  tickettool mcp --ticket-file ~/.tickettool/fs.ticket --key root.key.pub \
      --server-name fs -- npx -y @modelcontextprotocol/server-filesystem /work/project
  kill -HUP $GUARD_PID   # after writing a new ticket to ~/.tickettool/fs.ticket
`

func runMCP(e *env, args []string) error {
	fs := newFlags(e, "mcp", mcpUsage)
	src := &ticketSource{}
	fs.StringVar(&src.file, "ticket-file", "", "`PATH` of the file holding the ticket (re-read on SIGHUP)")
	fs.StringVar(&src.text, "ticket", "", "the ticket (`TICKET` text; every local user can read it: prefer --ticket-file)")
	keyPath := fs.String("key", "", "`PATH` of the HMAC secret or the Ed25519 public key")
	holderKey := fs.String("holder-key", "", "`HOLDER` private JWK, for a bound ticket")
	receipts := fs.String("receipts", "", "receipt `LOG` to append to")
	receiptKey := fs.String("receipt-key", "", "`PATH` of the secret receipt key")
	serverName := fs.String("server-name", "", "server `NAME`: tools are checked as NAME/tool")
	dischargeDir := fs.String("discharge-dir", "", "`DIR` of discharges (*.dis) for the ticket's approval caveats")
	profileName := fs.String("profile", "", "shipped server profile `NAME` (filesystem, everything): which arguments are paths, URLs, hosts")
	profileFile := fs.String("profile-file", "", "server profile `FILE` (JSON; see mcp/profiles)")
	upstreamURL := fs.String("upstream", "", "`URL` of a remote MCP server (Streamable HTTP), instead of a command")
	headerFile := fs.String("upstream-header-file", "", "`FILE` of the upstream's own headers (NAME: VALUE lines)")
	lf := &listenFlags{}
	fs.StringVar(&lf.addr, "listen", "", "speak Streamable HTTP to agents on `ADDR` (HOST:PORT, loopback)")
	fs.BoolVar(&lf.nonLocal, "listen-non-loopback", false, "allow a --listen address that is not loopback")
	fs.Var(&lf.origins, "allow-origin", "an `ORIGIN` (scheme://host[:port]) --listen accepts besides its own (repeatable)")
	fs.BoolVar(&lf.clients, "client-tickets", false, "with --listen: each client presents its own ticket (DPoP) instead of the guard's")
	fs.StringVar(&lf.publicURL, "public-url", "", "with --client-tickets: the `URL` clients address (proofs' htu); default http://ADDR")
	pol := policyFlags(fs)
	location := storeFlag(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	src.env = os.Getenv(ticketEnv)
	switch {
	case *upstreamURL != "" && len(pos) > 0:
		return usageErr("mcp takes a server command after -- or --upstream URL, not both")
	case *upstreamURL == "" && *headerFile != "":
		return usageErr("--upstream-header-file goes with --upstream")
	case len(pos) == 0 && *upstreamURL == "":
		return usageErr("mcp needs the server command after --, or --upstream URL")
	case *keyPath == "":
		return usageErr("mcp needs --key")
	case (*receipts == "") != (*receiptKey == ""):
		return usageErr("--receipts and --receipt-key go together")
	case lf.addr == "" && (lf.nonLocal || len(lf.origins) > 0 || lf.clients):
		return usageErr("--listen-non-loopback, --allow-origin and --client-tickets go with --listen")
	case lf.publicURL != "" && !lf.clients:
		return usageErr("--public-url goes with --client-tickets")
	case lf.clients && (src.file != "" || src.text != "" || src.env != ""):
		return usageErr("with --client-tickets each client presents its own ticket: give the guard none (--ticket-file, --ticket, %s)", ticketEnv)
	case lf.clients && *holderKey != "":
		return usageErr("with --client-tickets each client proves possession of its own key: --holder-key has no use")
	}
	if lf.addr != "" {
		if err := lf.check(e); err != nil {
			return err
		}
	}
	if !lf.clients {
		if err := src.check(e); err != nil {
			return err
		}
	}
	profile, err := profileOf(*profileName, *profileFile)
	if err != nil {
		return err
	}
	var up *mcp.Upstream
	if *upstreamURL != "" {
		if up, err = upstreamOf(*upstreamURL, *headerFile); err != nil {
			return err
		}
	}
	if *dischargeDir != "" {
		if fi, err := os.Stat(*dischargeDir); err != nil || !fi.IsDir() {
			return usageErr("--discharge-dir %s is not a directory", quoteArg(*dischargeDir))
		}
	}
	vk, keys, err := keysOf(*keyPath)
	if err != nil {
		return err
	}
	opts, err := pol.options()
	if err != nil {
		return err
	}
	var ticket *token.Ticket
	if !lf.clients {
		if ticket, err = src.read(); err != nil {
			return err
		}
	}
	logw := &lockedWriter{w: e.stderr}
	cfg := mcp.Config{Ticket: ticket, ClientTickets: lf.clients, Keys: keys, Options: opts, ServerName: *serverName, Audience: pol.aud, Log: logw,
		DischargeDir: *dischargeDir, ApproveTicket: src.approveRef(), Profile: profile}
	openCtx, cancelOpen := storeContext()
	st, _, err := openStore(openCtx, *location)
	cancelOpen()
	if err != nil {
		return err
	}
	defer st.Close()
	cfg.Store = st
	if *holderKey != "" {
		if cfg.Holder, err = readHolderKey(*holderKey, "--holder-key"); err != nil {
			return err
		}
	}
	if *receipts != "" {
		if cfg.Receipts, err = openReceipts(*receipts, *receiptKey); err != nil {
			return err
		}
		defer cfg.Receipts.Close()
	}
	p, err := mcp.New(cfg)
	if err != nil {
		return startFailure(err, ticket, vk, *serverName)
	}
	if src.file != "" && !lf.clients {
		defer reloadOnHangup(p, src, log.New(logw, "tickettool mcp: ", 0))()
	}
	if lf.addr != "" {
		lf.command, lf.upstream, lf.serverEnv = pos, up, withoutTicket(os.Environ())
		lf.keys, lf.opts, lf.store, lf.receipts, lf.log = keys, opts, st, cfg.Receipts, logw
		return serveListen(e, p, lf)
	}
	if up != nil {
		return serveUpstream(e, p, up)
	}
	return serveMCP(e, p, pos)
}

// serveMCP runs the server under p until it exits, and returns its status.
// SIGINT or SIGTERM stops the server (the mcp package signals its process
// group) and ends the guard with one line and the conventional status,
// 128 plus the signal's number.
func serveMCP(e *env, p *mcp.Proxy, command []string) error {
	ctx, stoppedBy, stop := cancelOnSignal()
	defer stop()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = withoutTicket(os.Environ())
	cmd.Stderr = e.stderr
	code, err := p.Run(ctx, e.stdin, e.stdout, cmd)
	if err != nil {
		select {
		case s := <-stoppedBy:
			return signalStop(s)
		default:
		}
		return fail(exitRefused, err)
	}
	if code != 0 {
		return &cliError{code: code, err: fmt.Errorf("the MCP server exited with status %d", code)}
	}
	return nil
}

// signalStop is the end of a guard stopped by a signal.
func signalStop(s os.Signal) error {
	return &cliError{code: 128 + sigNumber(s), notice: true, err: fmt.Errorf("stopped by %s; the MCP server was stopped too", sigName(s))}
}

// startFailure is the error of a guard that did not start: a ticket that
// can never allow a call is refused (exit status 1, as verify refuses it),
// with the hints verify gives and, for tools of other servers, the
// --server-name to pass; qualified tools and no --server-name at all is a
// usage error (exit status 2).
func startFailure(err error, t *token.Ticket, vk *key.Verifying, serverName string) error {
	var se *mcp.StartError
	if !errors.As(err, &se) {
		return fail(exitRefused, err)
	}
	var hints []string
	for _, r := range se.Refusals {
		if h := refusalHint(t, vk, r, false); h != "" {
			hints = append(hints, h)
		}
	}
	code := exitRefused
	if len(se.Servers) > 0 {
		hints = append(hints, serverNameHint(se.Servers, serverName))
		if serverName == "" {
			code = exitUsage
		}
	}
	return fail(code, err, hints...)
}
