package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

const verifyUsage = `
usage: tickettool verify --key PATH [--now TIME] [--tool NAME] [--op OP] [--path P]...
                         [--url URL]... [--cost AMOUNT] [--aud NAME]
                         [--dpop PROOF --htm METHOD --htu URI] [--revoked FILE]
                         [--require-expiry] [--max-lifetime DURATION]
                         [--require-holder] [--skew DURATION] [--modes MODES]
                         [--receipts LOG --receipt-key PATH] [--store LOCATION]
                         [--discharge D]... [--args JSON|@FILE] [--ids] [--json] TICKET

Checks TICKET offline under the root key in PATH: the HMAC secret, or the
Ed25519 public key (the private key file works too). TICKET is the
ticket's text, - for standard input, or @PATH for a file (whitespace
around the ticket in either is trimmed); --dpop PROOF takes the same forms.

Without request flags (--tool, --op, --path, --url, --cost, --aud, --dpop,
--discharge, --args)
it checks the key, the chain, that every block narrows the ones before it,
revocation and the time caveats, and prints "valid", or "invalid" and every
refusal, one per line (block, caveat, why). With request flags it decides
whether the ticket allows that call and prints "allowed", or "refused" and
every refusal. A refusal is printed once, on standard output; standard
error gets only hints (what a person could do about it). --op defaults to
invoke when --tool is given. A bound ticket needs a DPoP proof
(--dpop, with the --htm and --htu it was made for; see 'tickettool proof').

--aud NAME is a request flag too: the call is checked as made to NAME.
--receipts LOG appends one receipt for the decision to LOG (created if
absent, origin "tickettool"), signed with --receipt-key. An allowed call
is admitted in the store in one step: no block revoked there, the DPoP
proof never used, room in every budget (calls, total), which it then
charges; so a calls=1 ticket is allowed once, however many processes
verify it. Revocations in the store make "valid" "invalid" too.
--operation KEY names the call for retries: the key (1 to 255 printable
ASCII characters, no spaces) belongs to the ticket's family and is bound
to the call (tool, op, paths, URLs, audience, args digest). A repeat of an
allowed call under the same key gets the first outcome, "allowed", and
charges nothing (a hint says so; its receipt is a replayed record); the
key with another call is refused (check operation). It needs a store
(--store), where keys are kept until the family expires.
--ids prints the id of every block after the verdict, "block N ID": a
revocation names them ('tickettool revoke BLOCK0:BLOCK').
TIME is RFC 3339 or unix seconds. Exit status 1 means refused or invalid.

--discharge D (repeatable; its text, - or @PATH) presents a discharge
from 'tickettool approve' for an approval caveat; --args JSON (or @FILE,
or -) gives the call's arguments, whose RFC 8785 digest args caveats are
checked against. A call refused for want of an approval gets a hint
naming the approver, the code they should see, and the exact approve
command they run.

` + jsonRule + `The object's fields: decision ("allowed", "refused", "valid" or
"invalid"); refusals, an array of {check, block, kind, reason} (check is
key, mode, chain, attenuation, revoked, policy, caveat, approval or
dpop; block is -1 when no one block is concerned; kind is the caveat's kind or ""), empty
when allowed or valid; family_id, the family id (block 0's random
ticket id, 32 hex digits, as inspect shows it), and block_ids, every
block's id (64 hex digits, what revoke takes as BLOCK0:BLOCK) ("" and [] when the chain did not
verify); budgets, an array of {block, kind, key, limit} for every calls or
total caveat (limit a number for calls, an amount such as "5USD" for
total; key the hex id of the block that set it); hints, an array of
strings. A store that cannot be opened, or does not answer within 30
seconds, refuses too: under --json that is an outcome like any other
(decision refused, or invalid, with one refusal whose check is store).

` + policyUsage + `
` + storeUsage + `
Example:
  tickettool verify --key root.key.pub --now 2026-06-01T10:00:00Z \
      --tool read_file --path src/discount/rules.go "$TICKET"
`

func runVerify(e *env, args []string) error {
	fs := newFlags(e, "verify", verifyUsage)
	a := verifyFlags(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	arg, err := oneArg("verify", pos, "TICKET")
	if err != nil {
		return err
	}
	a.ticket = arg
	now, err := e.nowFlag(*a.now)
	if err != nil {
		return err
	}
	if err := a.check(arg); err != nil {
		return err
	}
	vk, keys, err := keysOf(*a.keyPath)
	if err != nil {
		return err
	}
	opts, err := a.pol.options()
	if err != nil {
		return err
	}
	_, t, err := e.ticketArg(arg)
	if err != nil {
		return err
	}
	ctx, cancel := storeContext()
	defer cancel()
	st, name, err := openStore(ctx, *a.location)
	if err != nil {
		return storeRefusal(e, a, err)
	}
	defer st.Close()
	if !a.isRequest() {
		d, err := verify.Validate(t, keys, now, &opts)
		if err != nil {
			return err
		}
		if err := revokedInStore(ctx, st, name, &d); err != nil {
			return err
		}
		return printDecision(e, t, vk, &d, verdict{"valid", "invalid", *a.ids, false, *a.asJSON, nil, name})
	}
	return decideCall(ctx, e, a, t, vk, guard.Config{Keys: keys, Options: opts, Store: st}, name, now)
}

// storeRefusal returns err, the failure to open the store; under --json
// it prints it instead as the refusal it is (decision refused, or invalid
// without request flags; one refusal with check "store", the error's
// hints in hints), so that a program reading the JSON gets a decision,
// and like every outcome under --json nothing on standard error.
func storeRefusal(e *env, a *verifyArgs, err error) error {
	code, hints := classify(err)
	if !*a.asJSON || code != exitRefused {
		return err
	}
	outcome := "refused"
	if !a.isRequest() {
		outcome = "invalid"
	}
	d := verify.Decision{Refusals: []verify.Refusal{{Check: guard.CheckStore, Block: -1, Reason: oneLine(err.Error())}}}
	if werr := writeJSON(e.stdout, newDecisionJSON(&d, outcome, hints)); werr != nil {
		return werr
	}
	return decidedErr(outcome)
}

// decideCall checks the call the flags describe through a Guard over cfg
// (with receipts when asked) and prints the decision.
func decideCall(ctx context.Context, e *env, a *verifyArgs, t *token.Ticket, vk *key.Verifying, cfg guard.Config, store string, now time.Time) error {
	req, err := a.request(e)
	if err != nil {
		return err
	}
	if *a.receipts != "" {
		log, err := openReceipts(*a.receipts, *a.receiptKey)
		if err != nil {
			return err
		}
		defer log.Close()
		cfg.Receipts = log
	}
	g, err := guard.New(cfg)
	if err != nil {
		return err
	}
	d, err := g.VerifyCall(ctx, t, req, now, guard.CallOptions{Operation: *a.operation})
	if errors.Is(err, guard.ErrInvalid) {
		return usageErr("--operation: %s", strings.TrimPrefix(err.Error(), "guard: invalid: "))
	}
	if err != nil {
		return fail(exitRefused, err, "the decision could not be recorded durably, so the call must not run")
	}
	if d.Operation != "" {
		// Captured at once: the outcome is all there is to keep.
		if _, err := g.FinishOperation(ctx, &d, nil, now); err != nil {
			return fail(exitRefused, err, "the operation's outcome could not be recorded, so the call must not run")
		}
	}
	if d.Replayed {
		fmt.Fprintf(e.stderr, "tickettool: hint: operation %s was allowed before (request %s): the first outcome, nothing charged again\n", *a.operation, d.Request)
	}
	return printDecision(e, t, vk, &d.Decision, verdict{"allowed", "refused", *a.ids, *a.proof == "", *a.asJSON, a.approveCmd(), store})
}

// openReceipts opens (or creates) a receipt log for appending.
func openReceipts(path, keyPath string) (*chain.Log, error) {
	k, err := readSigningKey(keyPath, "--receipt-key", "signing receipts")
	if err != nil {
		return nil, err
	}
	log, err := chain.Open(path, k, receiptOrigin)
	if err != nil {
		return nil, openReceiptsError(err, path, keyPath)
	}
	return log, nil
}

// verdict is how printDecision words and prints a decision.
type verdict struct {
	yes, no string // "allowed" and "refused", or "valid" and "invalid"
	ids     bool   // print every block id (text only: JSON always has them)
	noProof bool   // no DPoP proof was given
	json    bool
	approve *approveCmd // how to name the ticket and arguments in an approve hint; nil: no hint
	store   string      // the store's name, for the hint of a store refusal
}

// printDecision prints the decision on stdout: as text, the verdict, each
// refusal on its own line and (with ids) every block id; as JSON, one
// object. A refusal is printed there only: the error it returns (exit
// status 1) adds the hints on stderr as text, and nothing under JSON.
func printDecision(e *env, t *token.Ticket, vk *key.Verifying, d *verify.Decision, v verdict) error {
	outcome := v.yes
	var hints []string
	if !d.Allowed {
		outcome = v.no
		for _, r := range d.Refusals {
			h := refusalHint(t, vk, r, v.noProof)
			if r.Check == guard.CheckStore {
				h = storeHint(v.store)
			}
			if h != "" {
				hints = append(hints, h)
			}
		}
		if v.approve != nil {
			hints = append(hints, approvalHints(t, d.Refusals, verify.MissingApproval(d), *v.approve)...)
		}
	}
	if v.json {
		if err := writeJSON(e.stdout, newDecisionJSON(d, outcome, hints)); err != nil {
			return err
		}
		if d.Allowed {
			return nil
		}
		return decidedErr(outcome)
	}
	fmt.Fprintln(e.stdout, outcome)
	for _, r := range d.Refusals {
		fmt.Fprintln(e.stdout, oneLine(r.String()))
	}
	if v.ids {
		for i, id := range d.BlockIDs {
			fmt.Fprintf(e.stdout, "block %d %s\n", i, id)
		}
	}
	if d.Allowed {
		return nil
	}
	return decidedErr(outcome, hints...)
}

// storeHint says what a person can do about a call the store refused
// because it failed or did not answer in time.
func storeHint(store string) string {
	return fmt.Sprintf("the store %s failed or did not answer within %v, so the call was refused: try again once it answers "+
		"(a SQLite file another process keeps locked, a Redis server that is down or overloaded)", store, storeWait)
}

// refusalHint says what a person can do about a refusal, when that helps.
func refusalHint(t *token.Ticket, vk *key.Verifying, r verify.Refusal, noProof bool) string {
	switch {
	case r.Check == verify.CheckKey && t.UnverifiedKeyID() == vk.ID():
		return fmt.Sprintf("--modes does not accept the key's mode, %s: add it to --modes, or pass a key of an accepted mode", vk.Alg())
	case r.Check == verify.CheckKey:
		return fmt.Sprintf("the ticket names key id %q and --key holds %q: pass the key the ticket was minted under", t.UnverifiedKeyID(), vk.ID())
	case r.Check == verify.CheckMode:
		return fmt.Sprintf("the key decides the mode: --key is an %s key, the ticket says %s; pass the %s key with that id",
			vk.Alg(), t.UnverifiedAlg(), t.UnverifiedAlg())
	case r.Check == verify.CheckChain:
		return "the ticket was altered after it was made, or was minted under another key with the same id"
	case r.Check == verify.CheckDPoP && noProof:
		return "make a proof with the holder's key: tickettool proof make --key HOLDER.jwk --htm POST --htu URI --ticket TICKET; then pass --dpop PROOF --htm POST --htu URI"
	case r.Kind == caveat.Until:
		return "the ticket has expired: ask for a new one (machines narrow, only people widen)"
	case r.Check == verify.CheckPolicy:
		return "the verifier's own policy refuses the ticket whatever the call: ask for a ticket that meets it"
	case r.Kind == caveat.Audience:
		return "the ticket is only for the audiences its aud caveat lists: --aud names this verifier"
	}
	return ""
}

// revokedInStore refuses a valid decision whose chain holds a block the
// store has revoked. A store that fails refuses (exit 1).
func revokedInStore(ctx context.Context, st guard.Store, name string, d *verify.Decision) error {
	if !d.Allowed || len(d.BlockIDs) == 0 {
		return nil
	}
	i, err := st.Revoked(ctx, d.BlockIDs[0], d.BlockIDs)
	if err != nil {
		return storeFailed(name, err, "the store could not say whether the ticket is revoked, so it is not taken as valid")
	}
	if i >= 0 {
		d.Allowed = false
		d.Refusals = append(d.Refusals, verify.Refusal{Check: verify.CheckRevoked, Block: i, Reason: fmt.Sprintf("block %d is revoked in the store", i)})
	}
	return nil
}
