package caveat

import (
	"math"
	"slices"
)

// Scope is the effective constraint of a chain of blocks: the meet of
// every caveat added so far. Because Add only accepts a caveat at least as
// strict as the effective one of its kind, the effective constraint of a
// kind is simply the latest caveat of that kind, so a Scope is a fixed
// array indexed by kind: no maps, no allocation.
//
// The zero Scope is unconstrained, before block 0. Scope is a plain value:
// assignment (or Clone) copies it completely, and the copy evolves on its
// own. It keeps the caveats it is given without copying their slices, so
// those must not be modified afterwards.
type Scope struct {
	eff  [numKinds]Caveat     // effective caveat per known kind; Kind 0 = none yet
	blk  [numKinds]int        // block index in which eff[k] was added
	next int                  // one past the highest block index added so far
	apr  [maxApprovals]Caveat // the latest approval caveat of each nonce, in order of first appearance
	napr int
}

// Add checks that c is at least as strict as the effective constraint of
// its kind and records it as the new effective constraint. The caveats of
// one block may be added in any order; blocks must come in ascending
// order, and the first caveat of a block with index > 0 is first checked
// with CanAppend. On error (an *[Error] wrapping [ErrWiden]) s is unchanged.
//
// The relations:
//
//   - tools, ops, aud: every entry of c is admitted by the effective list
//     (tools: "workspace/read_file" is admitted by "read_file" and by
//     itself; "read_file" is not admitted by "workspace/read_file").
//   - paths: every prefix of c lies under an effective prefix on a segment
//     boundary.
//   - hosts: every pattern of c is covered by an effective pattern: an
//     exact host by itself or by "*.s" when it ends in ".s"; "*.t" by "*.s"
//     when t == s or t ends in ".s".
//   - calls, cost, total: a limit no larger; cost and total in the same
//     currency (another currency is a widening).
//   - until: no later; nbf: no earlier.
//   - depth: depth=N in block i means no block with index > i+N; a later
//     depth must not move that limit further.
//   - intent: only in block 0, at most once.
//   - holder: always accepted (binding and rebinding are the token
//     package's to check, with signatures); the latest holder is recorded.
//   - approval: an approval whose nonce no earlier approval has is a new
//     approval, always accepted: several form a conjunction (every one is
//     checked), which no single effective caveat expresses, so Effective
//     does not list them. An approval with the nonce of an earlier one
//     restates it, narrower: its approvers are some of the earlier one's
//     (same key id and key) and its threshold is no lower (spec/FORMAT.md
//     §4.6); it replaces the earlier one.
//   - args: always accepted and not recorded; two different args make the
//     ticket unusable, which is narrower.
//   - unknown kinds: accepted and not recorded (Check refuses them).
//
// Add assumes c is valid; it does not re-validate (see Check).
func (s *Scope) Add(block int, c Caveat) error {
	switch {
	case block < 0:
		return widen(c.Kind, "block index %d is negative", block)
	case block < s.next-1:
		return widen(c.Kind, "block %d added after block %d", block, s.next-1)
	case block >= s.next && block > 0:
		if err := s.CanAppend(block); err != nil {
			return err
		}
	}
	if c.Kind == Approval && c.Approver != nil {
		if err := s.addApproval(c); err != nil {
			return err
		}
	}
	if c.Kind.Known() && c.Kind != Approval && c.Kind != Args {
		if err := s.narrower(block, c); err != nil {
			return err
		}
		s.eff[c.Kind], s.blk[c.Kind] = c, block
	}
	s.next = max(s.next, block+1)
	return nil
}

func (s *Scope) narrower(block int, c Caveat) error {
	k := c.Kind
	if k == Intent {
		if block != 0 {
			return widen(Intent, "intent may only appear in block 0")
		}
		if s.eff[Intent].Kind != 0 {
			return widen(Intent, "intent may appear only once")
		}
		return nil
	}
	p := s.eff[k]
	if p.Kind == 0 {
		return nil
	}
	switch k {
	case Tools:
		for _, e := range c.List {
			if !toolAdmitted(p.List, e) {
				return widen(k, "tool %s is not admitted by %s", show(e), listText(k, p.List))
			}
		}
	case Ops, Audience:
		for _, e := range c.List {
			if !contains(p.List, e) {
				return widen(k, "%s is not in %s", show(e), listText(k, p.List))
			}
		}
	case Paths:
		for _, e := range c.List {
			if !pathAdmitted(p.List, e) {
				return widen(k, "%s is not under %s", show(e), underText(p.List))
			}
		}
	case Hosts:
		for _, e := range c.List {
			if !hostCovered(p.List, e) {
				return widen(k, "%s is not covered by %s", show(e), listText(k, p.List))
			}
		}
	case Calls:
		if c.N > p.N {
			return widen(k, "calls=%d is more than calls=%d", c.N, p.N)
		}
	case Cost, Total:
		if c.Amount.Currency != p.Amount.Currency {
			return widen(k, "%s is not in %s, the currency of %s", c.Amount, p.Amount.Currency, p)
		}
		if c.Amount.Micros > p.Amount.Micros {
			return widen(k, "%s is more than %s", c.Amount, p.Amount)
		}
	case Until:
		if c.Time > p.Time {
			return widen(k, "%s is later than %s", timeText(c.Time), timeText(p.Time))
		}
	case NotBefore:
		if c.Time < p.Time {
			return widen(k, "%s is earlier than %s", timeText(c.Time), timeText(p.Time))
		}
	case Depth:
		if lim, plim := depthLimit(block, c.N), depthLimit(s.blk[Depth], p.N); lim > plim {
			return widen(k, "depth=%d in block %d allows blocks up to %d, beyond the limit %d", c.N, block, lim, plim)
		}
	}
	return nil
}

// depthLimit is the highest block index that depth=n in block may allow,
// saturating instead of wrapping.
func depthLimit(block int, n uint64) uint64 {
	if n > math.MaxUint64-uint64(block) {
		return math.MaxUint64
	}
	return uint64(block) + n
}

// CanAppend reports whether a block with index next may be appended:
// nil, or an *[Error] wrapping [ErrWiden] when an effective ops caveat of an
// earlier block lacks "delegate", or when next lies beyond the effective
// depth limit.
func (s *Scope) CanAppend(next int) error {
	if next < 0 {
		return widen(0, "block index %d is negative", next)
	}
	if p := s.eff[Ops]; p.Kind == Ops && next > s.blk[Ops] && !contains(p.List, "delegate") {
		return widen(Ops, "no delegate, so no block may follow block %d", s.blk[Ops])
	}
	if p := s.eff[Depth]; p.Kind == Depth && next > s.blk[Depth] {
		if lim := depthLimit(s.blk[Depth], p.N); uint64(next) > lim {
			return widen(Depth, "depth=%d in block %d allows no block after block %d", p.N, s.blk[Depth], lim)
		}
	}
	return nil
}

// Effective returns the effective caveat of each kind constrained so far,
// in [Kind] order (for display). The depth caveat is expressed as if stated
// in block 0: its N is the highest block index allowed. The caveats share
// their slices with the ones added.
func (s *Scope) Effective() []Caveat {
	var out []Caveat
	for k := Tools; k <= Args; k++ {
		c := s.eff[k]
		if c.Kind == 0 {
			continue
		}
		if k == Depth {
			c.N = depthLimit(s.blk[Depth], c.N)
		}
		out = append(out, c)
	}
	return out
}

// Holder returns the thumbprint (jkt) of the latest holder caveat added,
// or nil when none was. The slice is the caveat's own: do not modify it.
func (s *Scope) Holder() []byte { return s.eff[Holder].Bytes }

// Clone returns an independent copy of s (the same as assigning *s).
func (s *Scope) Clone() Scope { return *s }

// addApproval records the approval c, checking that it narrows an
// earlier approval with its nonce. Beyond maxApprovals distinct nonces it
// records nothing: such a ticket is malformed (package token refuses it).
func (s *Scope) addApproval(c Caveat) error {
	for i := range s.napr {
		p := s.apr[i].Approver
		if p.Nonce != c.Approver.Nonce {
			continue
		}
		if err := narrowerApproval(p, c.Approver); err != nil {
			return err
		}
		s.apr[i] = c
		return nil
	}
	if s.napr < len(s.apr) {
		s.apr[s.napr] = c
		s.napr++
	}
	return nil
}

// narrowerApproval returns nil when a restates p no wider: each approver
// of a is one of p's, and a's threshold is no lower.
func narrowerApproval(p, a *Approver) error {
	set := p.Set()
	for _, m := range a.Set() {
		if !slices.Contains(set, m) {
			return widen(Approval, "approver %s is not among the approvers of the approval it restates", show(m.KeyID))
		}
	}
	if a.Threshold() < p.Threshold() {
		return widen(Approval, "a threshold of %d is lower than %d, the threshold of the approval it restates", a.Threshold(), p.Threshold())
	}
	return nil
}
