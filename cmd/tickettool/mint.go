package main

import (
	"errors"
	"fmt"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

const mintUsage = `
usage: tickettool mint --key PATH [--bind HOLDER.pub] [--no-expiry] [--unrestricted] [--now TIME]
                       [--approval APPROVER.pub [--approval-location TEXT]]... [--approvals-needed K] CAVEAT...

Mints a new ticket under the root key in PATH (a secret key file from
keygen) with the caveats as block 0, and prints its text.

A ticket must expire: give until=, or --no-expiry for one that never does.
An until that is already past is refused. A ticket must also constrain
what a call does, with at least one of tools, ops, paths, hosts or aud;
--unrestricted mints one that allows every call (budgets, until and holder
still apply). --now TIME (RFC 3339 or unix seconds) mints as of that time:
relative times count from it and the expiry check uses it.

A CAVEAT is KIND=VALUE: tools=read_file,write_file  ops=invoke,delegate
paths=src/discount/  hosts=api.example.com,*.example.org  calls=5
until=10m (or RFC 3339, or unix seconds; relative times are fixed now)
nbf=...  aud=workspace  cost=0.50USD  total=5USD  depth=2
intent="upgrade pricing deps"  holder=JKT. A kind may appear once.
--bind HOLDER.pub adds holder=JKT for that public JWK (DPoP binding);
holder= also takes the public JWK's text itself, never the private key.

` + approvalUsage + `
Example:
  tickettool mint --key root.key intent="fix the discount rounding" \
      tools=read_file,write_file ops=invoke,delegate paths=src/discount/ until=1h
  tickettool mint --key root.key --unrestricted --no-expiry calls=100
  tickettool mint --key root.key --approval lead.key.pub \
      --approval-location https://chat.example.com/pricing-lead tools=post until=1h
`

func runMint(e *env, args []string) error {
	fs := newFlags(e, "mint", mintUsage)
	keyPath := fs.String("key", "", "`PATH` of the root key (secret key file)")
	bind := fs.String("bind", "", "bind the ticket to the holder public JWK at `HOLDER.pub`")
	noExpiry := fs.Bool("no-expiry", false, "allow a ticket without until= (it never expires)")
	unrestricted := fs.Bool("unrestricted", false, "allow a ticket that names none of tools, ops, paths, hosts, aud")
	nowText := fs.String("now", "", "mint as of `TIME` (RFC 3339 or unix seconds) instead of now")
	approvals := addApprovalFlags(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	now, err := e.nowFlag(*nowText)
	if err != nil {
		return err
	}
	if pos, err = holderArgs(pos); err != nil {
		return err
	}
	key, err := mintingKey(*keyPath)
	if err != nil {
		return err
	}
	if *bind != "" {
		jkt, err := readHolderPub(*bind)
		if err != nil {
			return err
		}
		pos = append(pos, "holder="+jkt)
	}
	cs, err := caveat.ParseAll(pos, now)
	if err != nil {
		return err
	}
	if err := checkMint(cs, now, *noExpiry, *unrestricted); err != nil {
		return err
	}
	aps, err := approvals.caveats(countKind(cs, caveat.Approval))
	if err != nil {
		return err
	}
	if len(aps) > 0 {
		cs = append(cs, aps[0])
	}
	t, err := token.Mint(key, cs, nil)
	if err != nil {
		return err
	}
	if len(aps) > 1 {
		if t, err = appendApprovals(t, aps[1:]); err != nil {
			return err
		}
	}
	fmt.Fprintln(e.stdout, t.String())
	return nil
}

const attenuateUsage = `
usage: tickettool attenuate [--seal] [--bind NEW.pub --holder-key CURRENT] [--now TIME]
                            [--approval APPROVER.pub [--approval-location TEXT]]... [--approvals-needed K] TICKET [CAVEAT...]

Appends a block with the caveats to TICKET (its text, - to read it from
standard input, or @PATH to read it from a file) and prints the new ticket. Every caveat must be at least as
strict as the ticket's effective constraint of its kind: attenuation never
widens, and a caveat that would is refused by name. --seal seals the result
so nothing more can be appended. --bind binds the new ticket to another
holder key; when the ticket is already bound, --holder-key must be the
current holder's private JWK, which signs the rebinding. A ticket that has
expired (at --now TIME, default now) is refused, naming when it expired.

CAVEATs are written as for mint (see 'tickettool mint -h').

` + approvalUsage + `
Example:
  tickettool attenuate "$TICKET" tools=read_file paths=src/discount/tests/ until=10m
  tickettool attenuate --bind sub.jwk.pub --holder-key agent.jwk - calls=3 < ticket.txt
`

func runAttenuate(e *env, args []string) error {
	fs := newFlags(e, "attenuate", attenuateUsage)
	seal := fs.Bool("seal", false, "seal the result: nothing can be appended after it")
	bind := fs.String("bind", "", "bind the new ticket to the holder public JWK at `NEW.pub`")
	holderKey := fs.String("holder-key", "", "`CURRENT` holder's private JWK, to rebind a bound ticket")
	nowText := fs.String("now", "", "attenuate as of `TIME` (RFC 3339 or unix seconds) instead of now")
	approvals := addApprovalFlags(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	now, err := e.nowFlag(*nowText)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fail(exitUsage, errors.New("attenuate needs a TICKET"), "run 'tickettool attenuate -h' for usage")
	}
	if *holderKey != "" && *bind == "" {
		return usageErr("--holder-key is for rebinding: give --bind NEW.pub too")
	}
	_, t, err := e.ticketArg(pos[0])
	if err != nil {
		return err
	}
	if err := checkNotExpired(t, now); err != nil {
		return err
	}
	cavArgs, err := holderArgs(pos[1:])
	if err != nil {
		return err
	}
	if *bind != "" {
		jkt, err := readHolderPub(*bind)
		if err != nil {
			return err
		}
		cavArgs = append(cavArgs[:len(cavArgs):len(cavArgs)], "holder="+jkt)
	}
	if len(cavArgs) == 0 && len(approvals.specs) == 0 && !*seal {
		return fail(exitUsage, errors.New("nothing to append"), "give a CAVEAT, --approval PATH, --bind NEW.pub or --seal")
	}
	if t.Sealed() {
		return fail(exitRefused, &token.Error{Block: -1, Reason: "cannot append", Err: token.ErrSealed},
			"a sealed ticket is final: attenuate the unsealed ticket it was made from")
	}
	var aps []caveat.Caveat
	if len(cavArgs) > 0 || len(approvals.specs) > 0 {
		cs, err := caveat.ParseAll(cavArgs, now)
		if err != nil {
			return err
		}
		if aps, err = approvals.caveats(countApprovals(t) + countKind(cs, caveat.Approval)); err != nil {
			return err
		}
		if len(aps) > 0 {
			cs, aps = append(cs, aps[0]), aps[1:]
		}
		var opts token.Options
		if *holderKey != "" {
			if opts.Holder, err = readHolderKey(*holderKey, "--holder-key"); err != nil {
				return err
			}
		}
		nt, err := t.Attenuate(cs, &opts)
		if err != nil {
			return attenuateError(t, err)
		}
		t = nt
	}
	if t, err = appendApprovals(t, aps); err != nil {
		return err
	}
	if *seal {
		if t, err = t.Seal(); err != nil {
			return err
		}
	}
	fmt.Fprintln(e.stdout, t.String())
	return nil
}

// attenuateError adds hints to a refusal of Attenuate.
func attenuateError(t *token.Ticket, err error) error {
	var te *token.Error
	errors.As(err, &te)
	switch {
	case errors.Is(err, token.ErrHolder):
		return fail(exitRefused, err,
			"the ticket is bound to a holder key: rebinding needs that key, --holder-key CURRENT (the private JWK whose thumbprint the holder caveat names)")
	case errors.Is(err, token.ErrWiden) && te != nil && te.Kind != 0:
		scope, serr := t.UnverifiedScope()
		if serr == nil {
			for _, c := range scope.Effective() {
				if c.Kind == te.Kind {
					hint := fmt.Sprintf("the ticket's effective %s is %s: the new caveat must stay within it", c.Kind, c)
					if c.Kind == caveat.Depth {
						hint = fmt.Sprintf("the ticket allows blocks up to index %d (%s as if stated in block 0)", c.N, c)
					}
					if c.Kind == caveat.Ops {
						hint = fmt.Sprintf("the ticket's effective ops is %s; without delegate no block may be appended", c)
					}
					return fail(exitRefused, err, hint)
				}
			}
		}
		return fail(exitRefused, err)
	}
	return err
}
