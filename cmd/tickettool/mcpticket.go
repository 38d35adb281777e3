package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/tickettool/tickettool/internal/shell"
	"github.com/tickettool/tickettool/mcp"
	"github.com/tickettool/tickettool/token"
)

// ticketEnv is the environment variable mcp reads the ticket from.
const ticketEnv = "TICKETTOOL_TICKET"

// ticketSource is where mcp reads its ticket: exactly one of the three.
type ticketSource struct {
	text string // --ticket
	file string // --ticket-file
	env  string // $TICKETTOOL_TICKET
}

// check refuses anything but exactly one source, and hints at the safer
// ones when the ticket is on the command line.
func (s *ticketSource) check(e *env) error {
	var given []string
	for _, g := range []struct{ value, name string }{{s.file, "--ticket-file"}, {s.env, ticketEnv}, {s.text, "--ticket"}} {
		if g.value != "" {
			given = append(given, g.name)
		}
	}
	switch {
	case len(given) == 0:
		return usageErr("mcp needs the ticket: --ticket-file PATH, or the environment variable %s", ticketEnv)
	case len(given) > 1:
		return fail(exitUsage, fmt.Errorf("mcp takes the ticket from exactly one place, and got %s", strings.Join(given, " and ")),
			"give one of --ticket-file PATH, "+ticketEnv+" (unset it if it is left over) and --ticket")
	case s.text == "-":
		return usageErr("mcp speaks MCP on standard input: pass --ticket-file PATH (or --ticket @PATH), not -")
	case strings.HasPrefix(s.text, "@"):
		// --ticket @PATH is --ticket-file PATH, re-read on SIGHUP too.
		if s.text == "@" {
			return usageErr("@ needs a file name: --ticket @PATH reads the ticket from PATH")
		}
		s.file, s.text = s.text[1:], ""
	case s.text != "":
		fmt.Fprintf(e.stderr, "tickettool: hint: every local user can read --ticket with ps: pass --ticket-file PATH or set %s instead\n", ticketEnv)
	}
	return nil
}

// read reads and parses the ticket; the file is read anew every time.
func (s *ticketSource) read() (*token.Ticket, error) {
	text, from := s.text, "--ticket"
	switch {
	case s.file != "":
		b, err := readFile(s.file, "ticket file")
		if err != nil {
			return nil, err
		}
		text, from = strings.TrimSpace(string(b)), "--ticket-file "+s.file
	case s.env != "":
		text, from = strings.TrimSpace(s.env), ticketEnv
	}
	t, err := token.Parse(text)
	if err != nil {
		err = fmt.Errorf("%s: %w", from, err)
		if h := fileHint(s.text); s.text != "" && h != "" {
			return nil, fail(exitUsage, err, h)
		}
		return nil, err
	}
	return t, nil
}

// approveRef is how an approve command names the ticket: @PATH of the
// ticket file, the environment variable, or TICKET (the text itself
// would put a bearer ticket in front of the agent).
func (s *ticketSource) approveRef() string {
	switch {
	case s.file != "":
		if abs, err := filepath.Abs(s.file); err == nil {
			return shell.Quote("@" + abs)
		}
		return shell.Quote("@" + s.file)
	case s.env != "":
		return `"$` + ticketEnv + `"`
	}
	return "TICKET"
}

// reloadOnHangup replaces p's ticket with the one in src's file on every
// SIGHUP, logging one line for each: the ticket replaced (its block count
// and id, never its text), or the old one kept and why. It returns the
// function that stops it.
func reloadOnHangup(p *mcp.Proxy, src *ticketSource, lg *log.Logger) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-hup:
				reloadTicket(p, src, lg)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
		<-finished
	}
}

func reloadTicket(p *mcp.Proxy, src *ticketSource, lg *log.Logger) {
	t, err := src.read()
	if err == nil {
		err = p.SetTicket(t)
	}
	if err != nil {
		lg.Printf("SIGHUP: kept the old ticket: %s", oneLine(err.Error()))
		return
	}
	blocks := "1 block"
	if n := len(t.UnverifiedBlocks()); n != 1 {
		blocks = fmt.Sprintf("%d blocks", n)
	}
	id, _ := t.UnverifiedLastID()
	lg.Printf("SIGHUP: replaced the ticket with the one in %s: %s, ticket id %.16s…", src.file, blocks, id)
}

// withoutTicket returns environ without TICKETTOOL_TICKET: the server
// has no use for the ticket, and a bearer ticket it could read would be a
// leak.
func withoutTicket(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, ticketEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// serverNameHint says which --server-name the ticket's tools are for.
func serverNameHint(servers []string, serverName string) string {
	if serverName == "" {
		if len(servers) == 1 {
			return "the ticket's tools are qualified by a server name: pass --server-name " + servers[0]
		}
		return "the ticket's tools are qualified by server names: pass --server-name NAME, one of " + strings.Join(servers, ", ")
	}
	return fmt.Sprintf("the ticket's tools are for the servers named %s: if this is one, pass that --server-name; if not, ask for a ticket for %q",
		strings.Join(servers, ", "), serverName)
}

// lockedWriter serialises writes, so that log lines from the proxy and
// from the reloader never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
