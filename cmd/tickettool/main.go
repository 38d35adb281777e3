// Command tickettool mints, attenuates, inspects and verifies capability
// tickets, makes and checks DPoP proofs, and shows and verifies receipt
// logs. It is a thin layer over the packages caveat, token, dpop, verify and
// chain: everything it does, their Go API does too.
//
// Exit status: 0 success (or allowed, valid); 1 refused, invalid, tampered
// or expired (stdout names what when it prints the outcome, as verify
// does, else stderr); 2 usage errors and input that cannot be read or
// decoded at all. mcp, once its server runs, exits with the server's
// status, or 130 or 143 when SIGINT or SIGTERM stopped it. hook, once it
// knows its harness, answers as that harness reads a hook's exit status
// and output.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
)

// Exit statuses.
const (
	exitOK      = 0
	exitRefused = 1
	exitUsage   = 2
)

// receiptOrigin is the origin of every receipt log the CLI writes and
// verifies (the first line of its checkpoints).
const receiptOrigin = "tickettool"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what a command runs with: its streams and the time the process
// started (the only clock reading; commands with --now override it).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	now            time.Time
	stdinUsed      bool

	// flagSink, when set, receives each command's flag set in place of
	// parsing it (the command then returns errHelp): completion learns
	// the flags this way without running anything.
	flagSink func(*cmdFlags)
}

// cliError is an error with an exit status and hints for a person.
type cliError struct {
	code   int
	err    error
	hints  []string
	notice bool // not an error (a stop the user asked for): no "error:" label
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// usageErr returns an exit-2 error.
func usageErr(format string, args ...any) error {
	return &cliError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// fail wraps err with an exit status and hints.
func fail(code int, err error, hints ...string) error {
	return &cliError{code: code, err: err, hints: hints}
}

// errHelp is returned after -h printed a command's usage: exit 0.
var errHelp = errors.New("help requested")

// errOnStdout is wrapped by the error of a command that already printed
// its outcome (refused, invalid) on standard output: report prints its
// hints, but no error line repeating that outcome.
var errOnStdout = errors.New("the outcome is on standard output")

type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
	subs    []string // subcommands, for commands that have them
}

func commands() []command {
	return []command{
		{"keygen", "make a root or receipt key (HMAC secret or Ed25519 key pair)", runKeygen, nil},
		{"holder", "make a holder key pair (private and public JWK) for DPoP binding", runHolder, nil},
		{"mint", "mint a new ticket under a root key", runMint, nil},
		{"attenuate", "append a narrower block, seal, or rebind a ticket", runAttenuate, nil},
		{"approve", "approve a ticket's approval caveats: sign a discharge (dis1_...)", runApprove, nil},
		{"inspect", "show a ticket's blocks and effective scope (verifies nothing)", runInspect, nil},
		{"verify", "check a ticket, or decide whether it allows a request", runVerify, nil},
		{"proof", "make or check a DPoP proof (proof make, proof check)", runProof, []string{"make", "check"}},
		{"request", "send an HTTP request with a ticket and a DPoP proof, as a small curl", runRequest, nil},
		{"mcp", "run an MCP server behind a guard that enforces a ticket on every tool call", runMCP, nil},
		{"proxy", "put tickets in front of an HTTP API: a reverse proxy that checks every request (RFC 9449 DPoP)", runProxy, nil},
		{"hook", "decide a coding agent's tool call from its pre-tool hook (hook config, hook delegate)", runHook, []string{"config", "delegate"}},
		{"revoke", "revoke a ticket, and every ticket made from it, in a store", runRevoke, nil},
		{"spent", "show what each budget of a ticket has spent in a store", runSpent, nil},
		{"ops", "list a ticket family's operations (calls under an operation key) and where each stands", runOps, nil},
		{"receipt", "show, verify, checkpoint, repair or report on a receipt log (receipt show|verify|checkpoint|repair|report)", runReceipt,
			[]string{"show", "verify", "checkpoint", "repair", "report"}},
		{"demo", "run the whole story in a temporary directory and narrate it", runDemo, nil},
		{"version", "print the version, source revision and ticket format version", runVersion, nil},
		{"completion", "print a shell completion script (completion bash|zsh|fish)", runCompletion, nil},
	}
}

const mainUsage = `usage: tickettool COMMAND [flags] [args]

Capability tickets for tool calls: mint a ticket from a person's intent,
hand narrower tickets to subagents, check every call offline, and keep a
signed receipt log of every decision.

Commands:
%s
Run 'tickettool COMMAND -h' (or 'tickettool help COMMAND') for a command's
flags and an example; 'tickettool --version' is 'tickettool version'. Exit status: 0 success or allowed; 1 refused,
invalid, tampered or expired; 2 usage error or unreadable input.

Example:
  tickettool demo
`

func printMainUsage(w io.Writer) {
	var b strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, mainUsage, b.String())
}

// run is the whole program: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now()}
	if len(args) == 0 {
		printMainUsage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		printMainUsage(stdout)
		return exitOK
	case "-version", "--version":
		name = "version"
	case "help":
		if len(rest) == 0 {
			printMainUsage(stdout)
			return exitOK
		}
		name, rest = rest[0], append(rest[1:len(rest):len(rest)], "-h")
	}
	for _, c := range commands() {
		if c.name == name {
			return report(stderr, c.run(e, rest))
		}
	}
	fmt.Fprintf(stderr, "tickettool: error: unknown command %s\n", quoteArg(name))
	fmt.Fprintf(stderr, "tickettool: hint: run 'tickettool -h' for the list of commands\n")
	return exitUsage
}

// report prints err (if any) and returns the exit status it stands for.
func report(stderr io.Writer, err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return exitOK
	}
	if he := (*hookExit)(nil); errors.As(err, &he) {
		return he.code // the hook wrote its answer, in the harness's form
	}
	code, hints := classify(err)
	if !errors.Is(err, errOnStdout) {
		label := "error: "
		if ce := (*cliError)(nil); errors.As(err, &ce) && ce.notice {
			label = ""
		}
		fmt.Fprintf(stderr, "tickettool: %s%s\n", label, oneLine(err.Error()))
	}
	for _, h := range hints {
		if h == "" {
			continue
		}
		fmt.Fprintf(stderr, "tickettool: hint: %s\n", oneLine(h))
	}
	return code
}

// osReason is the system's reason for a failed file operation, without
// the os package's own "open PATH:" (the caller names the path once).
func osReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// oneLine keeps a message on one line, so nothing can forge extra lines.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// cmdFlags is a command's flag set and its usage text (synopsis,
// description and example).
type cmdFlags struct {
	*flag.FlagSet
	usage string
	e     *env
}

// newFlags returns the flag set of a command; -h prints usage and the
// flags on standard output.
func newFlags(e *env, name, usage string) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // parse prints usage for -h only, never for an error
	return &cmdFlags{FlagSet: fs, usage: usage, e: e}
}

func (fs *cmdFlags) printUsage() {
	w := fs.e.stdout
	fmt.Fprint(w, strings.TrimLeft(fs.usage, "\n"))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// parse parses args, allowing flags and positional arguments to be
// interleaved ("--" ends the flags), and returns the positional arguments.
// -h prints the usage and returns errHelp.
func (fs *cmdFlags) parse(args []string) ([]string, error) {
	if fs.e.flagSink != nil {
		fs.e.flagSink(fs)
		return nil, errHelp
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.printUsage()
				return nil, errHelp
			}
			return nil, &cliError{code: exitUsage, err: flagErr(err),
				hints: []string{"run 'tickettool " + fs.Name() + " -h' for usage"}}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" if it stopped there: everything left is
		// positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
