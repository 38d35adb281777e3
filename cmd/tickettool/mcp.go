package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/tickettool/tickettool/mcp"
)

const mcpUsage = `
usage: tickettool mcp --ticket TICKET --key PATH [--holder-key HOLDER]
                      [--receipts LOG --receipt-key PATH] [--server-name NAME]
                      -- COMMAND [ARG...]

Starts COMMAND as an MCP server and speaks MCP (newline-delimited JSON-RPC)
to the agent on standard input and output, forwarding between them and
enforcing the ticket on every tools/call: tool, operation, budgets, expiry,
and every path or URL argument (mapped by the reference filesystem
server's profile). A refused call never reaches the server; the agent gets
a tool result with isError naming the block and caveat. Everything else
passes through byte for byte. With --receipts, one signed receipt per
decision is written durably before an allowed call is forwarded. A bound
ticket needs --holder-key: the guard makes the DPoP proof for each call
(htm POST, htu mcp://NAME/TOOL). The exit status is the server's.

Example:
  tickettool mcp --ticket "$T" --key root.key.pub --server-name fs \
      -- npx -y @modelcontextprotocol/server-filesystem /work/project
`

func runMCP(e *env, args []string) error {
	fs := newFlags(e, "mcp", mcpUsage)
	ticketArg := fs.String("ticket", "", "the ticket (`TICKET` text)")
	keyPath := fs.String("key", "", "`PATH` of the HMAC secret or the Ed25519 public key")
	holderKey := fs.String("holder-key", "", "`HOLDER` private JWK, for a bound ticket")
	receipts := fs.String("receipts", "", "receipt `LOG` to append to")
	receiptKey := fs.String("receipt-key", "", "`PATH` of the secret receipt key")
	serverName := fs.String("server-name", "", "server `NAME`: tools are checked as NAME/tool")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return usageErr("mcp needs the server command after --")
	case *ticketArg == "" || *keyPath == "":
		return usageErr("mcp needs --ticket and --key")
	case (*receipts == "") != (*receiptKey == ""):
		return usageErr("--receipts and --receipt-key go together")
	}
	if *ticketArg == "-" {
		return usageErr("mcp speaks MCP on standard input: pass the ticket itself, not -")
	}
	keys, err := keyringOf(*keyPath)
	if err != nil {
		return err
	}
	_, ticket, err := e.ticketArg(*ticketArg)
	if err != nil {
		return err
	}
	cfg := mcp.Config{Ticket: ticket, Keys: keys, ServerName: *serverName, Log: e.stderr}
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := exec.Command(pos[0], pos[1:]...)
	cmd.Stderr = e.stderr
	code, err := mcp.Run(ctx, cfg, e.stdin, e.stdout, cmd)
	if err != nil {
		return fail(exitRefused, err)
	}
	if code != 0 {
		return &cliError{code: code, err: fmt.Errorf("the MCP server exited with status %d", code)}
	}
	return nil
}
