package main

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

const inspectUsage = `
usage: tickettool inspect [--json] [--now TIME] [--discharge D]... TICKET

Shows what TICKET (its text, - for standard input, or @PATH for a file)
says: mode, key id, family id, when it expires (against --now, default
the clock, with no skew), whether more blocks can be appended and why
not, every block's caveats, the effective scope after every block, holder
binding and seal state. The family id (32 hex digits) is block 0's random
ticket id, the same in every ticket attenuated from it, as receipts show
it (family=); it names the family, it revokes nothing: revocations and
budgets are kept under block ids, which only the verified chain yields
('tickettool verify --ids', 'tickettool revoke --key'). It reads the
ticket without any key, so NOTHING
IS VERIFIED: use 'tickettool verify' before trusting any of it. It never
prints a tag, signature or key.

Each approval caveat is listed with its block, the approver's key id,
the first 12 characters of its key, its location and the code of its
binding (what 'tickettool approve' shows the approver). --discharge D
(repeatable; its text, - or @PATH) says which approval each discharge
discharges (matched by binding) and until when; its signature is NOT
verified either.

With --json it prints one JSON object: verified (always false), warning,
mode, key_id, family_id (hex), sealed, holder (the bound key's jkt, or
""), now (RFC 3339), expires_at (the effective until, RFC 3339, or "" when
the ticket never expires), expired, approvals (an array of {block,
key_id, key_short, location, code}), discharges (an array of {index, id,
key_id, block, until, expired, caveats}, block -1 when the discharge
matches no approval), attenuable and attenuable_reason (""
when attenuable; else sealed, the ops caveat without delegate, the depth
spent, the block limit, or a block that widens), and blocks: an array of
{index, caveats, effective, rebound_by, problem} (rebound_by, the jkt of
the holder that signed a rebinding in this block, and problem, why a
verifier refuses the block, are "" when there is none), where caveats and
effective are arrays of {kind, value, text}: value is an array of
strings for tools, ops, paths, hosts and aud; a number for calls and
depth (in effective, depth is the highest block index allowed); an RFC
3339 string for until and nbf; an amount string such as "0.5USD" for cost
and total; a string for intent and for holder (the jkt); and the hex of
the CBOR value for a kind tickettool does not know. text is the caveat as
mint takes it. A ticket that cannot be decoded is exit status 2 and no
JSON.

Example:
  tickettool inspect "$TICKET"
  tickettool inspect --json @ticket.txt
`

const notVerified = "NOT VERIFIED: read without any key; nothing here is trustworthy until 'tickettool verify' accepts the ticket"

// caveatJSON is one caveat, typed (see inspectUsage).
type caveatJSON struct {
	Kind  string `json:"kind"`
	Value any    `json:"value"`
	Text  string `json:"text"`
}

// approverJSON is the value of an approval caveat: key and nonce in
// unpadded base64url, as in the caveat's text form.
//
// A threshold approval has need and approvers instead of key_id and key.
type approverJSON struct {
	KeyID     string       `json:"key_id,omitempty"`
	Key       string       `json:"key,omitempty"`
	Need      int          `json:"need,omitempty"`
	Approvers []memberJSON `json:"approvers,omitempty"`
	Nonce     string       `json:"nonce"`
	Location  string       `json:"location,omitempty"`
}

// memberJSON is one approver of a threshold approval.
type memberJSON struct {
	KeyID string `json:"key_id"`
	Key   string `json:"key"`
}

type inspectBlock struct {
	Index     int          `json:"index"`
	Caveats   []caveatJSON `json:"caveats"`
	Effective []caveatJSON `json:"effective"`
	RebindBy  string       `json:"rebound_by"` // thumbprint of the holder that signed a rebinding, or ""
	Problem   string       `json:"problem"`    // why a verifier will refuse this block, or ""
}

type inspectResult struct {
	Verified         bool            `json:"verified"`
	Warning          string          `json:"warning"`
	Mode             string          `json:"mode"`
	KeyID            string          `json:"key_id"`
	FamilyID         string          `json:"family_id"`
	Blocks           []inspectBlock  `json:"blocks"`
	Sealed           bool            `json:"sealed"`
	Holder           string          `json:"holder"` // the jkt the ticket is bound to
	Now              string          `json:"now"`
	ExpiresAt        string          `json:"expires_at"`
	Expired          bool            `json:"expired"`
	Attenuable       bool            `json:"attenuable"`
	AttenuableReason string          `json:"attenuable_reason"`
	Approvals        []approvalJSON  `json:"approvals"`
	Discharges       []dischargeJSON `json:"discharges"`

	now, expires time.Time // for the text form
}

func runInspect(e *env, args []string) error {
	fs := newFlags(e, "inspect", inspectUsage)
	asJSON := fs.Bool("json", false, "print one JSON object (fields above)")
	nowFlag := fs.String("now", "", "say whether the ticket has expired at `TIME` (RFC 3339 or unix seconds) instead of now")
	var disArgs stringList
	fs.Var(&disArgs, "discharge", "say which approval the discharge `D` (text, - or @PATH) discharges (repeatable)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	arg, err := oneArg("inspect", pos, "TICKET")
	if err != nil {
		return err
	}
	now, err := e.nowFlag(*nowFlag)
	if err != nil {
		return err
	}
	_, t, err := e.ticketArg(arg)
	if err != nil {
		return err
	}
	_, ds, err := e.dischargeArgs(disArgs)
	if err != nil {
		return err
	}
	res := inspectTicket(t, now)
	res.Approvals, res.Discharges = inspectApprovals(t, ds, now)
	if *asJSON {
		return writeJSON(e.stdout, res)
	}
	printInspect(e, res)
	return nil
}

func inspectTicket(t *token.Ticket, now time.Time) inspectResult {
	blocks := t.UnverifiedBlocks()
	res := inspectResult{
		Warning:  notVerified,
		Mode:     t.UnverifiedAlg().String(),
		KeyID:    t.UnverifiedKeyID(),
		FamilyID: hex.EncodeToString(blocks[0].TicketID),
		Sealed:   t.Sealed(),
		Blocks:   []inspectBlock{},
	}
	// Replay the blocks as a verifier would (package caveat's Scope), to
	// show the effective constraint after each one.
	var scope caveat.Scope
	for i, b := range blocks {
		ib := inspectBlock{Index: i, Caveats: caveatsJSON(b.Caveats)}
		var problems []string
		if i > 0 {
			if err := scope.CanAppend(i); err != nil {
				problems = append(problems, err.Error())
			}
		}
		for _, c := range b.Caveats {
			if err := scope.Add(i, c); err != nil {
				problems = append(problems, err.Error())
			}
		}
		ib.Problem = strings.Join(problems, "; ")
		ib.Effective = caveatsJSON(scope.Effective())
		if len(b.RebindJWK) > 0 {
			ib.RebindBy = "(unreadable JWK)"
			if pub, err := key.ParseHolderPublic(b.RebindJWK); err == nil {
				ib.RebindBy = pub.Thumbprint()
			}
		}
		res.Blocks = append(res.Blocks, ib)
	}
	if h := scope.Holder(); h != nil {
		res.Holder = base64.RawURLEncoding.EncodeToString(h)
	}
	res.now = now.UTC()
	res.Now = res.now.Format(time.RFC3339)
	for _, c := range scope.Effective() {
		if c.Kind == caveat.Until {
			res.expires = time.Unix(c.Time, 0).UTC()
			res.ExpiresAt = res.expires.Format(time.RFC3339)
			res.Expired = now.Unix() >= c.Time
		}
	}
	res.AttenuableReason = whyNotAttenuable(t, &scope, res.Blocks)
	res.Attenuable = res.AttenuableReason == ""
	return res
}

// whyNotAttenuable says why no block can be appended to t, whose blocks
// replayed into scope, as token.Attenuate would refuse it; "" when one
// can.
func whyNotAttenuable(t *token.Ticket, scope *caveat.Scope, blocks []inspectBlock) string {
	n := len(blocks)
	for _, b := range blocks {
		if b.Problem != "" {
			return fmt.Sprintf("block %d does not narrow the blocks before it (%s)", b.Index, b.Problem)
		}
	}
	switch {
	case t.Sealed():
		return "sealed: nothing can be appended"
	case n >= token.MaxBlocks:
		return fmt.Sprintf("the ticket has %d blocks, the most a ticket can have", n)
	}
	if err := scope.CanAppend(n); err != nil {
		var ce *caveat.Error
		if errors.As(err, &ce) && ce.Kind.Known() {
			return ce.Kind.String() + ": " + ce.Reason
		}
		return err.Error()
	}
	return ""
}

// caveatsJSON returns each caveat with its kind and typed value.
func caveatsJSON(cs []caveat.Caveat) []caveatJSON {
	out := make([]caveatJSON, 0, len(cs))
	for _, c := range cs {
		var v any
		switch c.Kind {
		case caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Audience:
			v = c.List
		case caveat.Calls, caveat.Depth:
			v = c.N
		case caveat.Until, caveat.NotBefore:
			v = time.Unix(c.Time, 0).UTC().Format(time.RFC3339)
		case caveat.Cost, caveat.Total:
			v = c.Amount.String()
		case caveat.Intent:
			v = c.Text
		case caveat.Holder, caveat.Args:
			v = base64.RawURLEncoding.EncodeToString(c.Bytes)
		case caveat.Approval:
			a := c.Approver
			if a == nil { // no decoded ticket has one without an approver
				break
			}
			aj := approverJSON{Nonce: base64.RawURLEncoding.EncodeToString(a.Nonce[:]), Location: a.Location}
			if a.Members == nil {
				aj.KeyID, aj.Key = a.KeyID, base64.RawURLEncoding.EncodeToString(a.Key[:])
			}
			for _, m := range a.Members {
				aj.Approvers = append(aj.Approvers, memberJSON{KeyID: m.KeyID, Key: base64.RawURLEncoding.EncodeToString(m.Key[:])})
			}
			aj.Need = a.Need
			v = aj
		default:
			v = hex.EncodeToString(c.Raw)
		}
		out = append(out, caveatJSON{Kind: c.Kind.String(), Value: v, Text: c.String()})
	}
	return out
}

// ago says how long d is, to the largest unit and the next: 45s, 59m,
// 3h, 3h20m, 2d, 2d5h (rounded down).
func ago(d time.Duration) string {
	d = d.Truncate(time.Second)
	days, hours, mins := int64(d/(24*time.Hour)), int64(d/time.Hour)%24, int64(d/time.Minute)%60
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int64(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", mins)
	case d < 24*time.Hour && mins == 0:
		return fmt.Sprintf("%dh", hours)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%dm", hours, mins)
	case hours == 0:
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%dh", days, hours)
}

func printInspect(e *env, r inspectResult) {
	w := e.stdout
	fmt.Fprintln(w, notVerified)
	fmt.Fprintf(w, "mode       %s\n", r.Mode)
	fmt.Fprintf(w, "key id     %s\n", r.KeyID)
	fmt.Fprintf(w, "family     %s\n", r.FamilyID)
	fmt.Fprintf(w, "blocks     %d\n", len(r.Blocks))
	switch {
	case r.ExpiresAt == "":
		fmt.Fprintln(w, "expires    never: no until caveat")
	case r.Expired:
		fmt.Fprintf(w, "expires    EXPIRED %s ago, at %s\n", ago(r.now.Sub(r.expires)), r.ExpiresAt)
	default:
		fmt.Fprintf(w, "expires    in %s, at %s\n", ago(r.expires.Sub(r.now)), r.ExpiresAt)
	}
	if r.Sealed {
		fmt.Fprintln(w, "sealed     yes: nothing can be appended")
	} else {
		fmt.Fprintln(w, "sealed     no")
	}
	if r.Attenuable {
		fmt.Fprintln(w, "attenuable yes: the holder can append narrower blocks")
	} else {
		fmt.Fprintf(w, "attenuable no: %s\n", r.AttenuableReason)
	}
	if r.Holder != "" {
		fmt.Fprintf(w, "holder     bound to %s: every call needs a DPoP proof by that key\n", r.Holder)
	} else {
		fmt.Fprintln(w, "holder     not bound: whoever holds the text can use it")
	}
	printApprovals(e, r)
	for _, b := range r.Blocks {
		fmt.Fprintf(w, "block %d\n", b.Index)
		if b.RebindBy != "" {
			fmt.Fprintf(w, "  rebound   by holder %s\n", b.RebindBy)
		}
		if len(b.Caveats) == 0 {
			fmt.Fprintln(w, "  caveat    (none)")
		}
		for _, c := range b.Caveats {
			fmt.Fprintf(w, "  caveat    %s\n", c.Text)
		}
		if b.Problem != "" {
			fmt.Fprintf(w, "  PROBLEM   %s (a verifier refuses this block)\n", b.Problem)
		}
		if len(b.Effective) == 0 {
			fmt.Fprintln(w, "  effective (unconstrained)")
		}
		for _, c := range b.Effective {
			fmt.Fprintf(w, "  effective %s\n", c.Text)
		}
	}
}
