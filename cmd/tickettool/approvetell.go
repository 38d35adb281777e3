package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/jcs"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// describeApproval tells, on standard error, what approving means: from
// the ticket's bytes only, never from a description an agent supplies.
// For each approval it shows the scope of blocks 0 to its block j, the
// blocks its binding covers (spec/FORMAT.md §4.6): a discharge also
// works on the ticket without the blocks after j, so what they narrow is
// not what is approved, and the person is told so. Every value read from
// the ticket or the arguments is shown escaped, and what they hold is
// said last, before the question (shown).
func describeApproval(e *env, t *token.Ticket, k *key.Signing, matched []token.UnverifiedApproval, d *dischargeParts, now time.Time) {
	w, s := e.stderr, &shown{}
	fmt.Fprintf(w, "You are approving, as %s, calls made with this ticket (read from its bytes; NOT verified):\n", s.text("the approver's key id", k.ID()))
	var widest *caveat.Scope
	for i, m := range matched {
		if len(matched) > 1 {
			fmt.Fprintf(w, "For the approval of block %d (blocks 0 to %d):\n", m.Block, m.Block)
		}
		scope, ok := describeScope(w, s, t, m.Block, now)
		if ok && i == 0 { // blocks ascending: the first covers the fewest blocks
			widest = &scope
		}
	}
	fmt.Fprintln(w, "The approval adds:")
	fmt.Fprintf(w, "  until       %s (lives %s)\n", d.until.UTC().Format(time.RFC3339), d.life)
	for _, c := range d.caveats {
		if c.Kind != caveat.Args && c.Kind != caveat.Until {
			fmt.Fprintf(w, "  %s\n", plainCaveat(s, "the approval's caveats", c, now))
		}
	}
	if widest != nil {
		describeTools(w, s, d, *widest)
	}
	if d.args != nil {
		digest, _ := caveat.ArgsDigest(d.args)
		fmt.Fprintf(w, "  arguments   exactly these (args=%s):\n", base64.RawURLEncoding.EncodeToString(digest))
		// The canonical form is what the digest covers: members sorted,
		// numbers and strings in one spelling.
		canon, _ := jcs.Canonical(d.args)
		var pretty bytes.Buffer
		if json.Indent(&pretty, canon, "              ", "  ") != nil {
			pretty.Reset()
			pretty.Write(canon)
		}
		fmt.Fprintf(w, "              %s\n", s.json("the arguments", pretty.Bytes()))
	}
	for _, m := range matched {
		s.note("the approver's key id", m.Approver.KeyID)
		s.note("the approval's location", m.Approver.Location)
		fmt.Fprintf(w, "  approval    block %d, from %s\n", m.Block, approvalWho(m.Approver))
		fmt.Fprintf(w, "  code        %s (the agent's refusal shows this code: compare)\n", token.BindingCode(m.Binding))
	}
	s.tell(w)
}

// describeScope shows the intents and the effective scope of blocks 0
// to j of t, and says so when blocks after j exist: the discharge does
// not cover them. It reports whether the blocks narrow as a verifier
// requires (else it shows the problem).
func describeScope(w io.Writer, s *shown, t *token.Ticket, j int, now time.Time) (caveat.Scope, bool) {
	blocks := t.UnverifiedBlocks()
	for i, b := range blocks[:j+1] {
		for _, c := range b.Caveats {
			if c.Kind == caveat.Intent {
				fmt.Fprintf(w, "  intent      %s (block %d)\n", s.quote(fmt.Sprintf("the intent of block %d", i), c.Text), i)
			}
		}
	}
	scope, err := scopeThrough(blocks[:j+1])
	if err != nil {
		fmt.Fprintf(w, "  PROBLEM     %s: a verifier refuses this ticket\n", s.text("the problem", oneLine(err.Error())))
	} else {
		for _, c := range scope.Effective() {
			if c.Kind != caveat.Intent {
				fmt.Fprintf(w, "  %s\n", plainCaveat(s, "the ticket's caveats", c, now))
			}
		}
	}
	if n := len(blocks); j < n-1 {
		fmt.Fprintf(w, "  NOT COVERED blocks %d to %d of this ticket: the discharge also works on the ticket without them, so it approves the scope above, not what those blocks narrow it to\n", j+1, n-1)
	}
	return scope, err == nil
}

// scopeThrough replays blocks into a caveat scope as a verifier would
// (token.Ticket.UnverifiedScope does it for every block): the effective
// constraint after the last of them.
func scopeThrough(blocks []token.Block) (caveat.Scope, error) {
	var s caveat.Scope
	for i, b := range blocks {
		if i > 0 {
			if err := s.CanAppend(i); err != nil {
				return s, fmt.Errorf("block %d: %w", i, err)
			}
		}
		for _, c := range b.Caveats {
			if err := s.Add(i, c); err != nil {
				return s, fmt.Errorf("block %d: %w", i, err)
			}
		}
	}
	return s, nil
}

// describeTools tells which tools a discharge without a tools caveat
// lets the call use, and warns when that is more than one: an args
// caveat approves a call's content, not its tool (spec/CAVEATS.md, "In a
// discharge"), so a discharge for one call should name its tool too.
func describeTools(w io.Writer, s *shown, d *dischargeParts, scope caveat.Scope) {
	for _, c := range d.caveats {
		if c.Kind == caveat.Tools {
			return // shown above: "tools       only ..."
		}
	}
	var allowed []string
	for _, c := range scope.Effective() {
		if c.Kind == caveat.Tools {
			allowed = c.List
		}
	}
	switch len(allowed) {
	case 0:
		fmt.Fprintln(w, "  tools       any tool: the approval names none (no tools=) and neither does the ticket")
	case 1:
		fmt.Fprintf(w, "  tools       only %s: the ticket's only tool (no tools=)\n", s.text("the ticket's caveats", allowed[0]))
		return
	default:
		fmt.Fprintf(w, "  tools       any of %s: the approval names none (no tools=)\n", s.list("the ticket's caveats", allowed))
	}
	fmt.Fprintln(w, "WARNING: this approval is not limited to one tool: it allows every tool above with the same arguments; add tools=NAME to approve one tool")
}

// plainCaveat words an effective caveat for the person approving, its
// values shown escaped (shown); what names where it came from.
func plainCaveat(s *shown, what string, c caveat.Caveat, now time.Time) string {
	list := s.list(what, c.List)
	switch c.Kind {
	case caveat.Intent:
		return "intent      " + s.quote(what, c.Text)
	case caveat.Tools:
		return "tools       only " + list
	case caveat.Ops:
		return "operations  only " + list
	case caveat.Paths:
		return "paths       only under " + list
	case caveat.Hosts:
		return "hosts       only " + list
	case caveat.Audience:
		return "audience    only " + list
	case caveat.Calls:
		if c.N == 1 {
			return "calls       one call only"
		}
		return fmt.Sprintf("calls       at most %d", c.N)
	case caveat.Total:
		return "budget      at most " + s.text(what, c.Amount.String()) + " in all"
	case caveat.Cost:
		return "cost        at most " + s.text(what, c.Amount.String()) + " per call"
	case caveat.Until:
		at := time.Unix(c.Time, 0).UTC()
		if !now.Before(at) {
			return fmt.Sprintf("until       %s: EXPIRED %s ago", at.Format(time.RFC3339), ago(now.Sub(at)))
		}
		return fmt.Sprintf("until       %s (in %s)", at.Format(time.RFC3339), ago(at.Sub(now)))
	case caveat.NotBefore:
		return "not before  " + time.Unix(c.Time, 0).UTC().Format(time.RFC3339)
	case caveat.Holder:
		return "holder      bound to the key " + base64.RawURLEncoding.EncodeToString(c.Bytes) + ": only it can use the ticket"
	case caveat.Depth:
		return fmt.Sprintf("delegation  up to block %d", c.N)
	case caveat.Args:
		return "arguments   only those whose digest is " + base64.RawURLEncoding.EncodeToString(c.Bytes)
	}
	return s.text(what, c.String())
}

// openTerminal opens the terminal approve asks on: the reader of the
// answer, the writer of the question, and the function that closes
// them. Tests replace it.
var openTerminal = func() (io.Reader, io.Writer, func(), error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	return f, f, func() { f.Close() }, nil
}

// confirm asks "approve? [y/N]" on the terminal: yes or y goes on;
// anything else refuses (exit status 1); no terminal refuses with exit
// status 2.
func confirm(e *env) error {
	r, w, closeTTY, err := openTerminal()
	if err != nil {
		return fail(exitUsage, errors.New("no terminal to ask on, and no --yes: nothing was signed"),
			"pass --yes to approve without asking, or run it in a terminal")
	}
	defer closeTTY()
	fmt.Fprint(w, "approve? [y/N] ")
	line, err := bufio.NewReader(io.LimitReader(r, maxAnswerBytes)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fail(exitUsage, fmt.Errorf("reading the answer: %w", err))
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return &cliError{code: exitRefused, notice: true, err: errors.New("not approved: nothing was signed")}
}
