package verify

import (
	"errors"
	"slices"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// Prepared is a ticket whose checks that depend only on the ticket, the
// keys and the policy ran once: steps 1 and 2 of the package
// documentation (key, mode, chain, narrowing, rebinding), plus what
// step 4 needs of the ticket. Its Verify runs the rest for each call —
// revocation, the policy, every caveat against the request and the time,
// and a bound ticket's DPoP proof — and decides exactly as [Verify] does
// with the same ticket, keys and options (Options.NoBlockIDs aside: a
// Prepared always has the ids, its calls consult revocations). A Prepared never changes once
// made, and is safe for concurrent use.
type Prepared struct {
	ticket *token.Ticket
	opts   Options
	chain  token.Verified
	scope  caveat.Scope
	// ownKey: the caller holds the bound ticket's current holder key
	// (WithHolderKey), so its calls carry no proof.
	ownKey bool
	// base is the decision of steps 1 and 2: a refusal, or the chain's
	// ids, budgets and intent every call's decision starts from.
	base Decision
}

// Prepare runs the checks of t that depend on no request and no time,
// under keys and the policy in opts (nil means the zero [Options]). The
// options must not change while the Prepared is used, except the contents
// of their Revoked set, which every call consults. A ticket those checks
// refuse is still prepared: every decision of its Verify is that refusal.
// It returns an error only for a malformed call (nil ticket or keyring).
func Prepare(t *token.Ticket, keys *token.Keyring, opts *Options) (*Prepared, error) {
	if t == nil || t.Len() == 0 {
		return nil, errors.New("verify: no ticket (nil, or a zero token.Ticket)")
	}
	if keys == nil {
		return nil, errors.New("verify: no keyring")
	}
	if opts == nil {
		opts = &noOptions
	}
	p := &Prepared{ticket: t, opts: *opts}
	// Step 1, as run makes it.
	d := &p.base
	k, ok := keys.Lookup(t.UnverifiedKeyID())
	if !ok {
		d.refuse(CheckKey, -1, 0, "no key for the ticket's key id")
		return p, nil
	}
	if len(opts.Modes) > 0 && !slices.Contains(opts.Modes, k.Alg()) {
		d.refuse(CheckKey, -1, 0, "policy does not accept "+k.Alg().String()+" keys")
		return p, nil
	}
	chain, err := t.VerifyChain(k)
	if err != nil {
		var te *token.Error
		if !errors.As(err, &te) {
			return nil, err
		}
		check := CheckChain
		if errors.Is(err, token.ErrKeyMismatch) {
			check = CheckMode
		}
		d.refuse(check, te.Block, 0, te.Reason)
		return p, nil
	}
	p.chain = chain
	d.FamilyID, d.BlockIDs = chain.FamilyID, chain.IDs
	// Step 2; revocation (step 3) is the calls', against p.opts.Revoked.
	noRevoked := p.opts
	noRevoked.Revoked = nil
	d.checkStructure(&p.chain, &p.scope, &noRevoked)
	return p, nil
}

// Ticket returns the ticket p was prepared from.
func (p *Prepared) Ticket() *token.Ticket { return p.ticket }

// Verify decides whether the prepared ticket allows req at now: the same
// [Decision] as [Verify] with the ticket, keys and options p was prepared
// with. It returns an error only for a nil request, or, as Verify does,
// for discharges that do not decode.
func (p *Prepared) Verify(req *caveat.Request, now time.Time) (Decision, error) {
	if req == nil {
		return Decision{}, errors.New("verify: no request")
	}
	dis, err := decodeDischarges(req.Discharges)
	if err != nil {
		return Decision{}, err
	}
	return p.decide(req, dis, now), nil
}

// Validate checks the prepared ticket without a request, as [Validate]
// does.
func (p *Prepared) Validate(now time.Time) Decision {
	return p.decide(nil, nil, now)
}

// decide runs steps 3 to 5 (with 6a, the approvals) on a copy of the base decision. The copy owns
// its slices, so a caller that changes them changes no other decision.
func (p *Prepared) decide(req *caveat.Request, dis []*token.Discharge, now time.Time) Decision {
	d := p.base
	d.Refusals = slices.Clone(d.Refusals)
	d.BlockIDs = slices.Clone(d.BlockIDs)
	d.FamilyID = slices.Clone(d.FamilyID)
	d.Budgets = slices.Clone(d.Budgets)
	if len(d.Refusals) > 0 {
		return d
	}
	if p.opts.Revoked != nil {
		for i, id := range p.chain.IDs {
			if p.opts.Revoked.Revoked(id) {
				d.refuse(CheckRevoked, i, 0, "block "+id.String()+" is revoked")
			}
		}
		if len(d.Refusals) > 0 {
			return d
		}
	}
	d.checkPolicy(&p.scope, now, &p.opts)
	if len(d.Refusals) > 0 {
		return d
	}
	for i := range p.chain.Blocks {
		for _, c := range p.chain.Blocks[i].Caveats {
			d.checkCaveat(i, c, req, now, p.opts.Skew)
		}
	}
	if req != nil {
		d.checkApprovals(p.ticket, &p.chain, p.scope.Holder(), dis, req, now, &p.opts)
	}
	if holder := p.scope.Holder(); holder != nil && req != nil && !p.ownKey {
		d.checkHolder(p.ticket, &p.chain, holder, req, now, &p.opts.DPoP)
	}
	d.Allowed = len(d.Refusals) == 0
	return d
}

// WithHolderKey returns a copy of p for a caller that holds, in its own
// process, the private key of the bound ticket's current holder: the copy's
// decisions need no DPoP proof (RFC 9449 proves possession of a key to a
// verifier elsewhere; here the verifier holds the key itself, so no proof
// travels and none could be replayed). Everything else is each call's, as
// before. It refuses a key that is not the current holder's (the
// thumbprint of the last holder caveat), one whose algorithm the DPoP
// allow-list refuses, and a ticket that is not bound. A p whose ticket
// the checks of Prepare refused is returned as it is: it refuses every
// call anyway.
func (p *Prepared) WithHolderKey(h *key.Holder) (*Prepared, error) {
	if len(p.base.Refusals) > 0 {
		return p, nil
	}
	holder := p.scope.Holder()
	switch {
	case holder == nil:
		return nil, errors.New("verify: the ticket is not bound to a holder key")
	case h == nil || h.Alg() == 0:
		return nil, errors.New("verify: no holder key")
	case h.Thumbprint() != jktText(holder):
		return nil, errors.New("verify: the key " + h.Thumbprint() + " is not the ticket's current holder " + jktText(holder))
	}
	// An Ed25519 key's proofs may say EdDSA or Ed25519 (RFC 9864): the
	// policy takes the key when it accepts either.
	names := []Algorithm{"EdDSA", "Ed25519"}
	if h.Alg() == key.ES256 {
		names = []Algorithm{"ES256"}
	}
	if algs := p.opts.DPoP.Algorithms; algs != nil && !slices.ContainsFunc(names, func(a Algorithm) bool { return slices.Contains(algs, a) }) {
		return nil, errors.New("verify: the policy does not accept " + string(names[0]) + " holder keys")
	}
	q := *p
	q.ownKey = true
	return &q, nil
}
