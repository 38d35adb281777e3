package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

const approveUsage = `
usage: tickettool approve --key APPROVER.key [--until DURATION] [--once] [--args JSON|@FILE]
                          [--out PATH] [--yes] [--now TIME] [--block N] [--with D]... [CAVEAT...] TICKET

Approves, as the approver whose Ed25519 secret key is in APPROVER.key,
the approval caveats of TICKET (its text, - for standard input, or @PATH
for a file) that name this key (its key id and its public key): prints
one discharge (dis1_...) per such caveat, one per line. A call carries
the discharges with the ticket (verify --discharge, or the mcp guard's
--discharge-dir). A discharge is bound to the ticket's bytes up to the
approval's block: it approves this ticket and the ones attenuated from
it, and no other.

Before signing it shows on standard error what is approved, read from
the ticket's bytes alone and NOT verified (approve holds no root key):
the intent, the effective scope (tools, ops, paths, hosts, aud, budgets,
until) of blocks 0 to the approval's block, the blocks the discharge is
bound to (it also works on the ticket without later blocks, so what they
narrow is not shown as approved; they are named as not covered), the
caveats the discharge adds, the
arguments (--args) and their digest, and the code of each approval. The
agent's refusal shows the person who asked the same code: compare them.
Without --yes it then asks "approve? [y/N]" on the terminal (/dev/tty),
and refuses with exit status 2 when there is no terminal.

--until DURATION is how long the discharge lives: default 10m, at most
24h (a verifier refuses a discharge that lives longer). --once adds
calls=1: the discharge allows one call. --args JSON (or @FILE, or - for
standard input) adds args=DIGEST, the SHA-256 of the arguments' RFC 8785
canonical JSON: the discharge then allows only a call with exactly these
arguments, to any tool the ticket allows: add tools=NAME for one tool
(approve warns when the discharge allows more than one). CAVEATs, written
as for mint (not until, approval or args: use --until and --args), narrow
the approval further, e.g. tools=post.
--out PATH writes the discharges to PATH (mode 0600) instead of standard
output: PATH is created, never overwritten, and never written through a
link, so a file or link already there is refused (exit status 2). Use it,
not a shell redirect, for a path another program chose or can write to
(the mcp guard's discharge directory).
--now TIME (RFC 3339 or unix seconds) approves as of that time.
--with D (repeatable; a discharge's text, - or @PATH) is a discharge
another approver already signed for this call: approve shows how many
approvals the call has and needs ("2 of 3 needed; approved by alice;
with yours 2: enough"), counting each approver whose discharge is bound
to the approval, verifies under that approver's key and has not expired.
An approval naming several approvers (mint --approvals-needed) always
shows the count.
--block N signs only the approval of block N (inspect lists a ticket's
approvals): without it, approve signs every approval naming the key.

Every value shown that came from the ticket or the arguments has each
character outside printable ASCII written as its code: \uXXXX, or
\UXXXXXXXX above U+FFFF, a backslash as \\ (in the arguments, JSON's
own escapes). A note names the values holding such characters, and a
warning says when one mixes scripts (a Cyrillic a, \u0430, in a Latin name) or
holds invisible characters (variation selectors, fillers, joiners,
spaces other than U+0020, format characters) or characters unassigned in
Unicode 15.0.0: look-alikes cannot pass for what they imitate.

Exit status 1: no approval caveat of the ticket names this key (or,
with --block N, none of block N does), or the answer was not yes.

Example:
  tickettool approve --key lead.key --once --args @call.json --out call.dis tools=post @ticket.txt
`

// approveArgs are approve's flags.
type approveArgs struct {
	keyPath, until, args, now *string
	once, yes                 *bool
	block                     *int // -1: every approval naming the key
}

func runApprove(e *env, args []string) error {
	fs := newFlags(e, "approve", approveUsage)
	a := &approveArgs{
		keyPath: fs.String("key", "", "`PATH` of the approver's Ed25519 secret key (keygen --alg ed25519)"),
		until:   fs.String("until", "", "how long the discharge lives: `DURATION`, default 10m, at most 24h"),
		once:    fs.Bool("once", false, "add calls=1: the discharge allows one call"),
		args:    fs.String("args", "", "approve only a call with these arguments: `JSON`, @FILE or -"),
		yes:     fs.Bool("yes", false, "sign without asking on the terminal"),
		now:     fs.String("now", "", "approve as of `TIME` (RFC 3339 or unix seconds) instead of now"),
		block:   blockFlag(fs),
	}
	out := fs.String("out", "", "write the discharges to `PATH`, created new (mode 0600, no link followed)")
	var with stringList
	fs.Var(&with, "with", "a discharge `D` another approver signed for this call (text, - or @PATH; repeatable)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fail(exitUsage, errors.New("approve needs a TICKET"), "run 'tickettool approve -h' for usage")
	}
	now, err := e.nowFlag(*a.now)
	if err != nil {
		return err
	}
	if err := checkApproveOut(*out); err != nil {
		return err
	}
	life, err := approveLifetime(*a.until)
	if err != nil {
		return err
	}
	k, err := approverKey(*a.keyPath)
	if err != nil {
		return err
	}
	_, t, err := e.ticketArg(pos[len(pos)-1])
	if err != nil {
		return err
	}
	d, err := e.dischargeCaveats(a, pos[:len(pos)-1], now, life)
	if err != nil {
		return err
	}
	matched, err := matchApprovals(t, k)
	if err == nil {
		matched, err = approvalOfBlock(matched, *a.block, k.ID())
	}
	if err != nil {
		return err
	}
	_, others, err := e.dischargeArgs(with)
	if err != nil {
		return err
	}
	describeApproval(e, t, k, matched, d, now)
	for _, m := range matched {
		tellCount(e.stderr, m, k.ID(), others, now)
	}
	if !*a.yes {
		if err := confirm(e); err != nil {
			return err
		}
	}
	var signed []string
	for _, m := range matched {
		dis, err := token.Approve(k, m.Binding, d.caveats, now)
		if err != nil {
			return err
		}
		signed = append(signed, dis.String())
	}
	if *out != "" {
		return writeApproveOut(*out, signed)
	}
	for _, dis := range signed {
		fmt.Fprintln(e.stdout, dis)
	}
	return nil
}

// approveLifetime parses --until: a positive duration, at most 24 h.
func approveLifetime(s string) (time.Duration, error) {
	if s == "" {
		return defaultApproveUntil, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, usageErr("--until %s is not a duration such as 10m or 2h", quoteArg(s))
	case d < time.Second:
		return 0, usageErr("--until %s: a discharge must live at least 1s", quoteArg(s))
	case d > maxApproveUntil:
		return 0, fail(exitUsage, fmt.Errorf("--until %s is longer than 24h", quoteArg(s)),
			"a verifier refuses a discharge that lives longer than 24h: approve again when it expires")
	}
	return d, nil
}

// approverKey reads the approver's secret key: Ed25519 only.
func approverKey(path string) (*key.Signing, error) {
	k, err := readSigningKey(path, "--key", "approving")
	if err != nil {
		return nil, err
	}
	if k.Alg() != key.Ed25519 {
		return nil, fail(exitUsage, fmt.Errorf("%s is an HMAC secret: an approver signs with an Ed25519 key", path),
			"make one with 'tickettool keygen --alg ed25519 --out lead.key' and give lead.key.pub to whoever mints the ticket (mint --approval)")
	}
	return k, nil
}

// dischargeParts are the caveats of the discharges approve makes, and
// what --args said, for display.
type dischargeParts struct {
	caveats []caveat.Caveat
	until   time.Time
	life    time.Duration
	args    []byte // the JSON text of --args, or nil
}

// dischargeCaveats builds the discharges' caveats: until now+life,
// calls=1 with --once, args with --args, and the CAVEATs.
func (e *env) dischargeCaveats(a *approveArgs, cavArgs []string, now time.Time, life time.Duration) (*dischargeParts, error) {
	cs, err := caveat.ParseAll(cavArgs, now)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		switch {
		case c.Kind == caveat.Until:
			return nil, usageErr("give the discharge's lifetime with --until DURATION, not until=")
		case c.Kind == caveat.Approval:
			return nil, usageErr("a discharge cannot carry an approval caveat")
		case c.Kind == caveat.Args:
			return nil, usageErr("give the arguments with --args JSON: approve computes their digest")
		case c.Kind == caveat.Calls && *a.once:
			return nil, usageErr("--once is calls=1: give one of them")
		}
	}
	p := &dischargeParts{until: now.Add(life).Truncate(time.Second), life: life}
	u, err := caveat.NewUntil(p.until)
	if err != nil {
		return nil, err
	}
	cs = append(cs, u)
	if *a.once {
		c, _ := caveat.NewCalls(1)
		cs = append(cs, c)
	}
	if *a.args != "" {
		text, err := e.textArg(*a.args, "the arguments")
		if err != nil {
			return nil, err
		}
		digest, err := caveat.ArgsDigest([]byte(text))
		if err != nil {
			return nil, fail(exitUsage, err, "--args takes the call's arguments as one JSON value, e.g. '{\"channel\":\"#pricing\"}'")
		}
		c, err := caveat.NewArgs(digest)
		if err != nil {
			return nil, err
		}
		cs, p.args = append(cs, c), []byte(text)
	}
	p.caveats = cs
	return p, nil
}

// matchApprovals returns the approval caveats of t that name k, by key id
// and public key; none is a refusal naming the approvals t has.
func matchApprovals(t *token.Ticket, k *key.Signing) ([]token.UnverifiedApproval, error) {
	pub, _ := ed25519Public(k.Verifying())
	all := t.UnverifiedApprovals()
	var out []token.UnverifiedApproval
	for _, a := range all {
		if slices.Contains(a.Approver.Set(), caveat.Member{KeyID: k.ID(), Key: pub}) {
			out = append(out, a)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	err := fmt.Errorf("no approval caveat of the ticket names this key (%s, key %s…): nothing to approve", k.ID(), shortKey(pub))
	if len(all) == 0 {
		return nil, fail(exitRefused, err, "the ticket has no approval caveat: it needs no approval")
	}
	var hints []string
	for _, a := range all {
		hints = append(hints, fmt.Sprintf("block %d asks for an approval from %s, code %s", a.Block, approvalWho(a.Approver), token.BindingCode(a.Binding)))
	}
	return nil, fail(exitRefused, err, hints...)
}
