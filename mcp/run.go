package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Run starts cmd as the MCP server and proxies between the agent (agentIn,
// agentOut: normally the proxy's own stdin and stdout) and the server's
// stdin and stdout, enforcing cfg.Ticket, until the server exits. It is
// [New] (with cfg.Dir defaulting to cmd.Dir) and then [Proxy.Run]; call those
// two to keep the [Proxy], e.g. to replace its ticket with SetTicket.
//
// The error is non-nil only when the proxy could not start (bad config,
// a *[StartError], or cmd failed to start; the status is then 1) or when ctx
// ended the run.
func Run(ctx context.Context, cfg Config, agentIn io.Reader, agentOut io.Writer, cmd *exec.Cmd) (int, error) {
	if cfg.Dir == "" {
		cfg.Dir = cmd.Dir
	}
	p, err := New(cfg)
	if err != nil {
		return 1, err
	}
	return p.Run(ctx, agentIn, agentOut, cmd)
}

// Run starts cmd as the MCP server and proxies between the agent (agentIn,
// agentOut: normally the proxy's own stdin and stdout) and the server's
// stdin and stdout until the server exits. It returns the server's exit
// status (128+N when signal N ended it), which the caller should exit
// with. Relative paths are resolved against Config.Dir: cmd should run
// there (cmd.Dir).
//
// The server runs in its own process group; its stderr goes to cmd.Stderr
// (os.Stderr when nil) line by line, each line with its control characters
// escaped. When the agent's input ends, the server's stdin
// is closed; a server that has not exited [ShutdownGrace] later gets SIGTERM,
// and SIGKILL [KillGrace] after that. When ctx is done (the caller's signal
// handling) or the agent can no longer be written to, the group gets
// SIGTERM, then SIGKILL. Once the server has exited, whatever is left of
// its group is killed.
//
// The error is non-nil only when cmd failed to start (the status is then
// 1) or when ctx ended the run.
func (p *Proxy) Run(ctx context.Context, agentIn io.Reader, agentOut io.Writer, cmd *exec.Cmd) (int, error) {
	if p.state() == nil {
		return 1, errNoOwnTicket
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return 1, fmt.Errorf("mcp: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 1, fmt.Errorf("mcp: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	// The server's stderr may repeat what the agent chose (paths, names):
	// each of its lines is passed on with control characters escaped.
	stderr := &lineEscaper{w: cmd.Stderr}
	cmd.Stderr = stderr
	setProcessGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return 1, startErr(cmd, err)
	}
	defer outR.Close()

	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		stderr.Close()
		close(exited)
	}()
	agentDone := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- p.serve(context.Background(), agentIn, agentOut, inW, outR, func() { close(agentDone) })
	}()

	var runErr error
	var shutdown <-chan time.Time
	done := ctx.Done()
	for stop := false; !stop; {
		select {
		case <-exited:
			stop = true
		case <-agentDone:
			agentDone = nil
			shutdown = time.After(ShutdownGrace)
		case <-shutdown:
			terminate(cmd, exited)
		case err := <-served:
			served = nil
			if err != nil { // the agent went away: nobody to serve
				p.log.Printf("%v", err)
				terminate(cmd, exited)
			} else if shutdown == nil { // the server closed its output
				shutdown = time.After(ShutdownGrace)
			}
		case <-done:
			done, runErr = nil, ctx.Err()
			terminate(cmd, exited)
		}
	}
	signalGroup(cmd, syscall.SIGKILL) // whatever the server left behind
	if served != nil {
		outR.SetReadDeadline(time.Now().Add(drainGrace))
		<-served
	}
	return exitStatus(cmd.ProcessState), runErr
}

// startErr is the error of a server that did not start: "mcp: start
// server NAME: REASON", without exec's or os's own prefixes, and still an
// *exec.Error or *fs.PathError underneath for errors.As.
func startErr(cmd *exec.Cmd, err error) error {
	var ee *exec.Error
	var pe *fs.PathError
	reason := err
	switch {
	case errors.As(err, &ee):
		reason = ee.Err
	case errors.As(err, &pe):
		reason = pe.Err
	}
	return &startError{name: cmd.Path, reason: reason, err: err}
}

type startError struct {
	name   string
	reason error
	err    error
}

func (e *startError) Error() string {
	return fmt.Sprintf("mcp: start server %s: %v", e.name, e.reason)
}

func (e *startError) Unwrap() error { return e.err }

// terminate sends the server's group SIGTERM, then SIGKILL if it has not
// exited KillGrace later, and returns once it exited.
func terminate(cmd *exec.Cmd, exited <-chan struct{}) {
	signalGroup(cmd, syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(KillGrace):
	}
	signalGroup(cmd, syscall.SIGKILL)
	<-exited
}

// exitStatus is the status a shell would report for the server.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if c := ps.ExitCode(); c >= 0 {
		return c
	}
	return 1
}
