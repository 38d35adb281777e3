package token

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// Discharge is an approver's signed approval of one approval caveat of
// one ticket (spec/FORMAT.md §4.6 "Approvals and discharges"): a
// one-block document
//
//	discharge = { 1: 1, 2: bstr .cbor dblock, 3: bstr .size 64 }
//	dblock    = { 2: key id, 3: bstr .size 16 nonce, 4: caveats, 7: bstr .size 32 binding }
//
// signed with Ed25519 by the approver's key over
// "tickettool/v1 discharge\x00" ‖ the block's bytes. The binding is the
// ticket's [Ticket.Binding] for the approval's block, which every
// discharge carries: a discharge for one ticket matches no other. Its
// caveats must include until and may include any ordinary kind, never an
// approval. It has no mode, next key or tail: it is sealed by construction
// and cannot be attenuated. Its own text prefix ([DischargePrefix]),
// envelope and signature label keep a discharge and a ticket apart: neither
// parses, decodes or verifies as the other.
//
// A Discharge is immutable. Its contents are unverified until
// [Discharge.Verify] succeeds under the approval caveat's key; accessors
// that return them say so in their names.
type Discharge struct {
	raw     []byte // the whole encoding
	block   []byte // the block's bytes, in raw
	sig     []byte // in raw
	keyID   string
	nonce   [dischargeNonceBytes]byte
	binding [bindingBytes]byte
	caveats []caveat.Caveat // in kind order
}

// Approve makes the discharge of the approval whose binding is given (the
// ticket's [Ticket.Binding] for the approval caveat's block), signed by
// approver, an Ed25519 key whose id is the approval caveat's key id. The
// caveats must include until (a discharge lives briefly) and may be of any
// known kind but approval, at most one per kind; they are stored in kind
// order. The nonce comes from crypto/rand. It refuses ([ErrApprove]) what
// [DecodeDischarge] would refuse, so every discharge it makes decodes, and
// a discharge no verifier would accept at now: an until not after now, or
// more than [MaxDischargeLifetime] after it (spec/FORMAT.md §4.6).
func Approve(approver *key.Signing, binding [32]byte, caveats []caveat.Caveat, now time.Time) (*Discharge, error) {
	if approver.Alg() != key.Ed25519 {
		return nil, &Error{Block: -1, Reason: "the approver's key must be ed25519", Err: ErrApprove}
	}
	if err := checkApproverID(approver.ID()); err != nil {
		return nil, &Error{Block: -1, Reason: err.Error(), Err: ErrApprove}
	}
	w := wire.DischargeBlock{KeyID: approver.ID(), ID: make([]byte, dischargeNonceBytes), Binding: binding[:]}
	var err error
	if w.Caveats, err = encodeDischargeCaveats(caveats, now); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(randsrc.Reader(), w.ID); err != nil {
		return nil, fmt.Errorf("token: approve: reading randomness: %w", err)
	}
	block, err := wire.Marshal(w)
	if err != nil {
		return nil, &Error{Block: -1, Reason: "cannot encode the block", Err: ErrApprove}
	}
	sig, err := approver.Sign(dischargeMessage(block))
	if err != nil {
		return nil, fmt.Errorf("token: approve: %w", err)
	}
	raw, err := wire.Marshal(wire.Discharge{Version: FormatVersion, Block: block, Sig: sig})
	if err != nil {
		return nil, &Error{Block: -1, Reason: "cannot encode the discharge", Err: ErrApprove}
	}
	if len(raw) > MaxDischargeBytes {
		return nil, &Error{Block: -1, Reason: fmt.Sprintf("the discharge would be larger than %d bytes", MaxDischargeBytes), Err: ErrApprove}
	}
	d, err := decodeDischargeOwned(raw)
	if err != nil { // the checks above are the decoder's: cannot happen
		return nil, fmt.Errorf("token: approve: internal error: %w", err)
	}
	return d, nil
}

// encodeDischargeCaveats checks caveats as Approve takes them and returns
// their wire values by kind.
func encodeDischargeCaveats(caveats []caveat.Caveat, now time.Time) (map[uint64]cbor.RawMessage, error) {
	if len(caveats) > MaxDischargeCaveats {
		return nil, &Error{Block: -1, Reason: fmt.Sprintf("more than %d caveats", MaxDischargeCaveats), Err: ErrApprove}
	}
	cs := slices.Clone(caveats)
	slices.SortStableFunc(cs, func(a, b caveat.Caveat) int { return cmp.Compare(a.Kind, b.Kind) })
	m := make(map[uint64]cbor.RawMessage, len(cs))
	until := false
	for j, c := range cs {
		switch {
		case c.Kind == caveat.Approval:
			return nil, &Error{Block: -1, Kind: c.Kind, Reason: "a discharge cannot carry an approval caveat", Err: ErrApprove}
		case !c.Kind.Known():
			return nil, &Error{Block: -1, Kind: c.Kind, Reason: "unknown kind", Err: ErrApprove}
		case j > 0 && cs[j-1].Kind == c.Kind:
			return nil, &Error{Block: -1, Kind: c.Kind, Reason: "appears twice", Err: ErrApprove}
		}
		v, err := wire.EncodeCaveat(c)
		if err != nil {
			return nil, err // caveat's own error (caveat.ErrSyntax), prefixed once
		}
		m[uint64(c.Kind)] = v
		if c.Kind == caveat.Until {
			until = true
			if e := checkLifetime(time.Unix(c.Time, 0), now); e != "" {
				return nil, &Error{Block: -1, Kind: caveat.Until, Reason: e, Err: ErrApprove}
			}
		}
	}
	if !until {
		return nil, &Error{Block: -1, Kind: caveat.Until, Reason: "a discharge must carry an until caveat", Err: ErrApprove}
	}
	return m, nil
}

// checkLifetime says why a discharge lasting until is not one to make at
// now, or "".
func checkLifetime(until, now time.Time) string {
	switch {
	case !until.After(now):
		return "until is not after now: the discharge would be expired"
	case until.Sub(now) > MaxDischargeLifetime:
		return fmt.Sprintf("until is more than %v after now: verifiers refuse a discharge that lives longer", MaxDischargeLifetime)
	}
	return ""
}

// dischargeMessage returns what an approver signs: the discharge label
// and the block's bytes.
func dischargeMessage(block []byte) []byte {
	return append(append(make([]byte, 0, len(labelDischarge)+len(block)), labelDischarge...), block...)
}

// Verify checks the discharge's signature under pub, the approval
// caveat's key: pub must be an Ed25519 key whose id is the discharge's key
// id (else [ErrKeyMismatch]), and the signature over
// "tickettool/v1 discharge\x00" ‖ the block must verify (else [ErrChain]).
// It checks nothing else: matching the binding, the time window and the
// caveats against a request are the verifier's (package verify).
func (d *Discharge) Verify(pub *key.Verifying) error {
	switch {
	case d == nil || len(d.raw) == 0:
		return dischargeMalformed("a zero Discharge (use ParseDischarge, DecodeDischarge or Approve)")
	case pub == nil:
		return &Error{Block: -1, Reason: "no key", Err: ErrKeyMismatch}
	case pub.Alg() != key.Ed25519:
		return &Error{Block: -1, Reason: "a discharge verifies under an ed25519 key, not " + pub.Alg().String(), Err: ErrKeyMismatch}
	case pub.ID() != d.keyID:
		return &Error{Block: -1, Reason: "the discharge names another key id", Err: ErrKeyMismatch}
	case !pub.Verify(dischargeMessage(d.block), d.sig):
		return &Error{Block: -1, Reason: "discharge signature does not verify", Err: ErrChain}
	}
	return nil
}

// ID returns the discharge id, SHA-256("tickettool/v1 block id\x00" ‖ Sig)
// like a block id: public, stable, what a verifier revokes and keys the
// discharge's budgets by. A zero [Discharge] has the zero id.
func (d *Discharge) ID() [32]byte {
	if len(d.sig) == 0 {
		return [32]byte{}
	}
	return blockID(d.sig)
}

// UnverifiedKeyID returns the approver's key id the discharge names.
func (d *Discharge) UnverifiedKeyID() string { return d.keyID }

// UnverifiedBinding returns the binding the discharge names: the
// [Ticket.Binding] of the approval it discharges.
func (d *Discharge) UnverifiedBinding() [32]byte { return d.binding }

// UnverifiedCaveats returns the discharge's caveats in kind order (a new
// slice; the caller must not modify the caveats' lists).
func (d *Discharge) UnverifiedCaveats() []caveat.Caveat { return slices.Clone(d.caveats) }
