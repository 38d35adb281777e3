package verify

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// Options are the verifier's own policy. No ticket can weaken it. The zero
// value accepts both modes, allows no clock skew, and requires neither an
// expiry nor a bound on lifetime.
type Options struct {
	// Skew is the clock skew tolerated for until and nbf.
	Skew time.Duration
	// Modes are the chaining modes accepted; empty means both.
	Modes []key.Alg
	// RequireExpiry refuses tickets without an until caveat.
	RequireExpiry bool
	// MaxLifetime, when positive, refuses tickets whose expiry lies more
	// than this far after now.
	MaxLifetime time.Duration
	// Revoked reports revoked block ids and discharge ids (a discharge's
	// token.Discharge.ID as a token.BlockID); nil means none are revoked.
	Revoked Revocations
	// RequireHolder refuses tickets that are not bound to a holder key.
	RequireHolder bool
	// DPoP tunes the check of a bound ticket's proof.
	DPoP DPoPOptions
	// NoBlockIDs says the caller needs no block ids (it keeps no
	// revocations, budgets or receipts): the chain is checked alike, but
	// the ids are not computed and Decision.BlockIDs stays empty, unless
	// Revoked is set, a block carries a calls or total caveat (budgets are
	// keyed by block ids) or a block rebinds (its holder signature covers
	// the previous block's id). It saves one SHA-256 per block. A verifier
	// with a store needs the ids: guard.New refuses the option.
	NoBlockIDs bool
}

// Revocations is a set of revoked block ids. Revoking a block refuses every
// ticket that contains it, that is, the ticket it ended and every ticket
// attenuated from that one. Revoking a discharge id refuses every request
// that presents that discharge (spec/FORMAT.md §7 step 6a, sub-step 6).
type Revocations interface {
	Revoked(token.BlockID) bool
}

// RevokedSet is a [Revocations] held in memory.
type RevokedSet map[token.BlockID]struct{}

// Revoked reports whether id is in the set.
func (s RevokedSet) Revoked(id token.BlockID) bool { _, ok := s[id]; return ok }

// Verify decides whether t allows req at now, under the keys in keys and
// the policy in opts (nil means the zero [Options]). See the package
// documentation for the steps. It returns an error only for a malformed
// call (nil ticket, keyring or request) or malformed input: a discharge of
// req.Discharges that does not decode, or more than [MaxDischarges] of
// them (a *[DischargeError] wrapping token.ErrMalformed).
func Verify(t *token.Ticket, req *caveat.Request, keys *token.Keyring, now time.Time, opts *Options) (Decision, error) {
	if req == nil {
		return Decision{}, errors.New("verify: no request")
	}
	dis, err := decodeDischarges(req.Discharges)
	if err != nil {
		return Decision{}, err
	}
	var d Decision
	if err := run(&d, t, req, dis, keys, now, opts); err != nil {
		return Decision{}, err
	}
	return d, nil
}

// Validate checks a ticket without a request: the key, the chain, the
// narrowing of every block, revocation, the policy and the time caveats
// (until, nbf; unknown kinds still refuse). Approval caveats hold: there
// is no request to carry discharges. It answers "is this ticket sound and
// current?", never "may this call run?": use [Verify] for that.
func Validate(t *token.Ticket, keys *token.Keyring, now time.Time, opts *Options) (Decision, error) {
	var d Decision
	if err := run(&d, t, nil, nil, keys, now, opts); err != nil {
		return Decision{}, err
	}
	return d, nil
}

var noOptions Options

// run fills d, which holds no decision yet (its Budgets may be empty
// room), with the decision on t. dis are req's discharges, decoded.
func run(d *Decision, t *token.Ticket, req *caveat.Request, dis []*token.Discharge, keys *token.Keyring, now time.Time, opts *Options) error {
	if t == nil || t.Len() == 0 {
		return errors.New("verify: no ticket (nil, or a zero token.Ticket)")
	}
	if keys == nil {
		return errors.New("verify: no keyring")
	}
	if opts == nil {
		opts = &noOptions
	}
	key, ok := keys.Lookup(t.UnverifiedKeyID())
	if !ok {
		d.refuse(CheckKey, -1, 0, "no key for the ticket's key id")
		return nil
	}
	if len(opts.Modes) > 0 && !slices.Contains(opts.Modes, key.Alg()) {
		d.refuse(CheckKey, -1, 0, "policy does not accept "+key.Alg().String()+" keys")
		return nil
	}
	var chain token.Verified
	var err error
	if opts.NoBlockIDs && !needIDs(t, opts) {
		chain, err = t.VerifyChainWithoutIDs(key)
	} else {
		chain, err = t.VerifyChain(key)
	}
	if err != nil {
		var te *token.Error
		if !errors.As(err, &te) {
			return err
		}
		check := CheckChain
		if errors.Is(err, token.ErrKeyMismatch) {
			check = CheckMode
		}
		d.refuse(check, te.Block, 0, te.Reason)
		return nil
	}
	d.FamilyID, d.BlockIDs = chain.FamilyID, chain.IDs

	var scope caveat.Scope // large: filled in place, never copied
	if !d.checkStructure(&chain, &scope, opts) {
		return nil
	}
	d.checkPolicy(&scope, now, opts)
	if len(d.Refusals) > 0 {
		return nil
	}
	for i := range chain.Blocks {
		for _, c := range chain.Blocks[i].Caveats {
			d.checkCaveat(i, c, req, now, opts.Skew)
		}
	}
	if req != nil {
		d.checkApprovals(t, &chain, scope.Holder(), dis, req, now, opts)
	}
	if holder := scope.Holder(); holder != nil && req != nil {
		d.checkHolder(t, &chain, holder, req, now, &opts.DPoP)
	}
	d.Allowed = len(d.Refusals) == 0
	return nil
}

// checkStructure replays the blocks into a scope (each must narrow what
// came before), collects budgets and the intent, and checks revocation.
func (d *Decision) checkStructure(chain *token.Verified, scope *caveat.Scope, opts *Options) bool {
	for i := range chain.Blocks {
		if i > 0 {
			if err := scope.CanAppend(i); err != nil {
				d.refuse(CheckAttenuation, i, kindOf(err), reason(err))
				return false
			}
		}
		prevHolder := scope.Holder()
		for _, c := range chain.Blocks[i].Caveats {
			if err := scope.Add(i, c); err != nil {
				d.refuse(CheckAttenuation, i, c.Kind, reason(err))
				return false
			}
			switch c.Kind {
			case caveat.Calls:
				d.Budgets = append(d.Budgets, Budget{Block: i, Kind: c.Kind, Key: chain.IDs[i], Calls: c.N})
			case caveat.Total:
				d.Budgets = append(d.Budgets, Budget{Block: i, Kind: c.Kind, Key: chain.IDs[i], Total: c.Amount})
			case caveat.Intent:
				d.Intent = c.Text
			}
		}
		if !d.checkRebind(chain, i, prevHolder) {
			return false
		}
	}
	if opts.Revoked != nil {
		for i, id := range chain.IDs {
			if opts.Revoked.Revoked(id) {
				d.refuse(CheckRevoked, i, 0, "block "+id.String()+" is revoked")
			}
		}
	}
	return len(d.Refusals) == 0
}

func (d *Decision) checkPolicy(scope *caveat.Scope, now time.Time, opts *Options) {
	if opts.RequireHolder && scope.Holder() == nil {
		d.refuse(CheckPolicy, -1, 0, "holder binding required: the ticket is a bearer ticket")
	}
	if !opts.RequireExpiry && opts.MaxLifetime <= 0 {
		return
	}
	var until caveat.Caveat
	ok := false
	for _, c := range scope.Effective() {
		if c.Kind == caveat.Until {
			until, ok = c, true
		}
	}
	if !ok {
		why := "expiry required: the ticket has no until caveat"
		if !opts.RequireExpiry {
			why = fmt.Sprintf("maximum lifetime %s: the ticket has no until caveat, so its lifetime is unbounded", opts.MaxLifetime)
		}
		d.refuse(CheckPolicy, -1, 0, why)
		return
	}
	if opts.MaxLifetime > 0 {
		exp := time.Unix(until.Time, 0).UTC()
		if exp.Sub(now) > opts.MaxLifetime {
			d.refuse(CheckPolicy, -1, 0, fmt.Sprintf("maximum lifetime: expiry %s is more than %s ahead",
				exp.Format(time.RFC3339), opts.MaxLifetime))
		}
	}
}

func (d *Decision) checkCaveat(i int, c caveat.Caveat, req *caveat.Request, now time.Time, skew time.Duration) {
	if req == nil {
		switch c.Kind {
		case caveat.Until, caveat.NotBefore:
		default:
			if c.Kind.Known() {
				return
			}
		}
		req = &emptyRequest
	}
	if err := c.Evaluate(req, now, skew); err != nil {
		d.refuse(CheckCaveat, i, c.Kind, reason(err))
	}
}

var emptyRequest caveat.Request

// kindOf extracts the kind a caveat error names (ops or depth for a block
// that may not follow), or 0.
func kindOf(err error) caveat.Kind {
	var ce *caveat.Error
	if errors.As(err, &ce) {
		return ce.Kind
	}
	return 0
}

// reason extracts the person-facing reason of a caveat error.
func reason(err error) string {
	var ce *caveat.Error
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return err.Error()
}

// needIDs reports whether a decision on t needs the block ids although the
// caller asked for none: to look them up in opts.Revoked, to key the
// budgets of calls and total caveats, or to check a rebinding signature,
// which covers the previous block's id (spec/FORMAT.md §4.4).
func needIDs(t *token.Ticket, opts *Options) bool {
	if opts.Revoked != nil {
		return true
	}
	bs := t.UnverifiedBlocks()
	for i := range bs {
		if i > 0 && bs[i].RebindJWK != nil {
			return true
		}
		for j := range bs[i].Caveats {
			if k := bs[i].Caveats[j].Kind; k == caveat.Calls || k == caveat.Total {
				return true
			}
		}
	}
	return false
}
