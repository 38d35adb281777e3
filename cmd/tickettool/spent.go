package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tickettool/tickettool/caveat"
	guardpkg "github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

const spentUsage = `
usage: tickettool spent --key PATH [--store LOCATION] [--json] [--now TIME] TICKET

Shows what each budget of TICKET (its text, - for standard input, or @PATH
for a file) has spent in the store: every calls and total caveat of every
block, one line each,

  block N calls limit 10 spent 3 (captured 2, reserved 1) remaining 7
  block N total limit 5USD spent 0.25USD (captured 0.25USD, reserved 0USD) remaining 4.75USD

An allowed call is reserved on every budget, then captured (it ran) or
released (it did not, and the reservation is given back) by a guard that
holds reservations (tickettool mcp); one whose hold has ended counts as
captured, and the command line's verify captures at once. spent is
captured plus reserved, as of --now. With --json, an array of objects
with the fields block, kind, limit, spent, captured, reserved and
remaining: numbers for calls, amounts as text ("4.75USD") for total. A
budget set by block N is shared by every ticket attenuated from that
block, so what it spent counts their calls too. A ticket without budgets
prints nothing ([]).

The ticket is verified first under --key, the root key as verify takes it
(HMAC secret, Ed25519 public or private key): budgets are counted under
the ids of the verified chain's blocks. A ticket that does not verify, or
whose blocks widen it, is refused (exit status 1); one that is expired,
not yet valid or revoked in the store still shows its budgets, with a
hint on standard error.

` + storeUsage + `
Example:
  tickettool spent --key root.key --store ~/tickets/store.db "$TICKET"
`

func runSpent(e *env, args []string) error {
	fs := newFlags(e, "spent", spentUsage)
	location := storeFlag(fs)
	keyPath := fs.String("key", "", "`PATH` of the root key: HMAC secret or Ed25519 public (or private) key")
	asJSON := fs.Bool("json", false, "print a JSON array")
	nowFlag := fs.String("now", "", "judge the ticket's time caveats at `TIME` (RFC 3339 or unix seconds)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	arg, err := oneArg("spent", pos, "TICKET")
	if err != nil {
		return err
	}
	if *keyPath == "" {
		return fail(exitUsage, errors.New("spent needs --key PATH, the root key"),
			"budgets are counted under the ids of the verified chain's blocks")
	}
	if e.now, err = e.nowFlag(*nowFlag); err != nil {
		return err
	}
	d, err := e.spentDecision(*keyPath, arg)
	if err != nil {
		return err
	}
	ctx, cancel := storeContext()
	defer cancel()
	st, name, err := openStore(ctx, *location)
	if err != nil {
		return err
	}
	defer st.Close()
	family := d.BlockIDs[0]
	usage, err := st.Spent(ctx, family, d.Budgets)
	if err != nil {
		return storeFailed(name, err, "")
	}
	held, err := heldOf(ctx, st, family, d.Budgets, e.now)
	if err != nil {
		return storeFailed(name, err, "")
	}
	revoked, err := st.Revoked(ctx, family, d.BlockIDs)
	if err != nil {
		return storeFailed(name, err, "")
	}
	if err := printSpent(e, d.Budgets, usage, held, *asJSON); err != nil {
		return err
	}
	if revoked >= 0 {
		fmt.Fprintf(e.stderr, "tickettool: hint: block %d (%s) is revoked in this store: no call can spend more\n",
			revoked, d.BlockIDs[revoked])
	}
	if !*asJSON && len(d.Budgets) == 0 {
		fmt.Fprintln(e.stderr, "tickettool: hint: the ticket has no calls or total caveat: nothing is counted")
	}
	return nil
}

// spentDecision verifies the ticket in arg under the key in keyPath and
// returns the decision holding its block ids and budgets. Only a refusal
// of a time caveat (expired, not yet valid) lets it through, with a hint.
func (e *env) spentDecision(keyPath, arg string) (*verify.Decision, error) {
	vk, keys, err := keysOf(keyPath)
	if err != nil {
		return nil, err
	}
	_, t, err := e.ticketArg(arg)
	if err != nil {
		return nil, err
	}
	d, err := verify.Validate(t, keys, e.now, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range d.Refusals {
		if r.Check != verify.CheckCaveat || len(d.BlockIDs) == 0 {
			return nil, fail(exitRefused, errors.New("invalid: "+r.String()), refusalHint(t, vk, r, false))
		}
	}
	if len(d.Refusals) > 0 {
		fmt.Fprintf(e.stderr, "tickettool: hint: the ticket is not valid now (%s): no call can spend more\n",
			oneLine(d.Refusals[0].String()))
	}
	return &d, nil
}

// heldOf returns what of each budget's use is still held at now, from a
// store that reports it (every store of this module does).
func heldOf(ctx context.Context, st guardpkg.Store, family token.BlockID, budgets []verify.Budget, now time.Time) ([]uint64, error) {
	hr, ok := st.(guardpkg.HeldReporter)
	if !ok {
		return nil, fmt.Errorf("store: %T cannot say what is reserved", st)
	}
	return hr.Held(ctx, family, budgets, now)
}

// spentJSON is one budget in spent --json.
type spentJSON struct {
	Block     int    `json:"block"`
	Kind      string `json:"kind"`
	Limit     any    `json:"limit"`
	Spent     any    `json:"spent"`
	Captured  any    `json:"captured"`
	Reserved  any    `json:"reserved"`
	Remaining any    `json:"remaining"`
}

// printSpent prints one line (or JSON object) per budget: held[i] of
// usage[i].Spent is reserved, the rest captured.
func printSpent(e *env, budgets []verify.Budget, usage []guardpkg.Usage, held []uint64, asJSON bool) error {
	if len(usage) != len(budgets) || len(held) != len(budgets) {
		return fail(exitRefused, fmt.Errorf("store: %d usages and %d reservations for %d budgets", len(usage), len(held), len(budgets)))
	}
	out := make([]spentJSON, len(budgets))
	for i, u := range usage {
		// A reservation counted in held but not yet in spent (read apart)
		// is shown as reserved, never as a negative capture.
		h := min(held[i], u.Spent)
		out[i] = spentJSON{Block: budgets[i].Block, Kind: u.Kind.String(),
			Limit: u.Limit, Spent: u.Spent, Captured: u.Spent - h, Reserved: h, Remaining: u.Remaining}
		if u.Kind == caveat.Total {
			out[i].Limit = amount(u.Limit, u.Currency)
			out[i].Spent = amount(u.Spent, u.Currency)
			out[i].Captured = amount(u.Spent-h, u.Currency)
			out[i].Reserved = amount(h, u.Currency)
			out[i].Remaining = amount(u.Remaining, u.Currency)
		}
	}
	if asJSON {
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	for _, o := range out {
		fmt.Fprintf(e.stdout, "block %d %s limit %v spent %v (captured %v, reserved %v) remaining %v\n",
			o.Block, o.Kind, o.Limit, o.Spent, o.Captured, o.Reserved, o.Remaining)
	}
	return nil
}

// amount returns micros of currency as caveat text ("4.75USD").
func amount(micros uint64, currency string) string {
	if currency == "" {
		return strconv.FormatUint(micros, 10)
	}
	return caveat.Amount{Micros: micros, Currency: currency}.String()
}
