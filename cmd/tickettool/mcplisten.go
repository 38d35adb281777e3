package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/mcp"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// listenFlags are the flags of mcp's Streamable HTTP side toward agents.
type listenFlags struct {
	addr      string
	nonLocal  bool
	origins   stringList
	clients   bool
	publicURL string
	command   []string
	upstream  *mcp.Upstream
	serverEnv []string
	// With --client-tickets, what the middleware reading them shares
	// with the guard.
	keys     *token.Keyring
	opts     verify.Options
	store    guard.Store
	receipts *chain.Log
	log      io.Writer
}

// check refuses a listen address that is not loopback unless
// --listen-non-loopback says so: a listener elsewhere is reachable by
// whoever reaches the address, and the guard's own ticket then acts for
// every one of them.
func (f *listenFlags) check(e *env) error {
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usageErr("--listen %s: want HOST:PORT", quoteArg(f.addr))
	}
	if !mcp.IsLoopback(f.addr) {
		if !f.nonLocal {
			return usageErr("--listen %s is not a loopback address: anyone who reaches it acts with the guard's ticket; "+
				"pass --listen-non-loopback to mean it", quoteArg(f.addr))
		}
		who := "every client that reaches it acts with the guard's ticket"
		if f.clients {
			who = "clients reach it in plain HTTP: put TLS in front of it"
		}
		fmt.Fprintf(e.stderr, "tickettool: warning: --listen %s is not a loopback address: %s\n", f.addr, who)
	}
	return nil
}

// serveListen runs the guard's Streamable HTTP endpoint until SIGINT or
// SIGTERM, then ends every session (each server is stopped, each call
// still unanswered settled).
func serveListen(e *env, p *mcp.Proxy, f *listenFlags) error {
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fail(exitRefused, fmt.Errorf("listening on %s: %w", f.addr, err))
	}
	cfg := mcp.Listen{Addr: ln.Addr().String(), Origins: f.origins, Upstream: f.upstream}
	if f.clients {
		public := f.publicURL
		if public == "" {
			public = "http://" + ln.Addr().String()
		}
		// Nonces under a key of this process: clients learn them from
		// the challenge (RFC 9449 §9).
		m, err := dpophttp.New(dpophttp.Options{Keys: f.keys, Policy: f.opts, Store: f.store, Receipts: f.receipts,
			PublicURL: public, Log: f.log})
		if err != nil {
			ln.Close()
			return usageErr("--public-url: %v", strings.TrimPrefix(err.Error(), "dpophttp: "))
		}
		cfg.Clients = m
	}
	if f.upstream == nil {
		cfg.Command = func() *exec.Cmd {
			cmd := exec.Command(f.command[0], f.command[1:]...)
			cmd.Env = f.serverEnv
			cmd.Stderr = e.stderr
			return cmd
		}
	}
	h, closeAll, err := p.ListenHandler(cfg)
	if err != nil {
		ln.Close()
		return usageErr("--listen: %v", strings.TrimPrefix(err.Error(), "mcp: "))
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: proxyHeaderTimeout, IdleTimeout: proxyIdleTimeout,
		MaxHeaderBytes: proxyMaxHeaderBytes}
	fmt.Fprintf(e.stderr, "tickettool mcp: listening on http://%s\n", ln.Addr())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		closeAll()
		return fail(exitRefused, err)
	case s := <-sigs:
		ctx, cancel := context.WithTimeout(context.Background(), proxyShutdownTimeout)
		defer cancel()
		closeAll() // streams end, so Shutdown need not wait for them
		srv.Shutdown(ctx)
		<-done
		return &cliError{code: 128 + sigNumber(s), notice: true, err: fmt.Errorf("stopped by %s", sigName(s))}
	}
}
