package token

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/tickettool/tickettool/caveat"
)

// Binding returns Bind_j, the value that ties a discharge to the approval
// caveat of block j (spec/FORMAT.md §4.6 "Approvals and discharges"; the
// design's section "Binding"):
//
//	P_j    = SHA-256( for k in 0..j: uint64be(len(B_k)) ‖ B_k )
//	Bind_j = SHA-256( "tickettool/v1 approval\x00" ‖ P_j )
//
// over the exact bytes B_k of blocks 0 to j. It needs no key and reads no
// tag or signature, so the holder, the approver and the verifier compute
// it alike from the ticket's text, in both modes. Block 0 carries the
// random ticket id and block j the approval's random nonce, so a sibling
// ticket or a caveat copied into another ticket gives another binding;
// blocks appended after j do not change it, so a ticket attenuated further
// keeps its approvals. Binding does not check the chain: a verifier
// matches bindings before any signature work, then checks the chain.
//
// It fails ([ErrApproval]) when block j does not exist or carries no
// approval caveat.
func (t *Ticket) Binding(j int) ([32]byte, error) {
	if len(t.blocks) == 0 {
		return [32]byte{}, errEmpty()
	}
	if j < 0 || j >= len(t.blocks) {
		return [32]byte{}, &Error{Block: -1, Reason: "block " + strconv.Itoa(j) + " does not exist", Err: ErrApproval}
	}
	if !hasKind(t.blocks[j].Caveats, caveat.Approval) {
		return [32]byte{}, &Error{Block: j, Reason: "the block carries no approval caveat", Err: ErrApproval}
	}
	h := sha256.New()
	var n [8]byte
	for k := 0; k <= j; k++ {
		raw := t.blocks[k].raw
		binary.BigEndian.PutUint64(n[:], uint64(len(raw)))
		h.Write(n[:])
		h.Write(raw)
	}
	var buf [len(labelBind) + sha256.Size]byte
	m := append(append(buf[:0], labelBind...), h.Sum(nil)...)
	return sha256.Sum256(m), nil
}

// bindingCodeChars is how many base32 characters of a binding its code
// shows: 50 bits.
const bindingCodeChars = 10

// BindingCode returns the short code people compare to check that they
// approve what was asked for: the first ten characters of the base32
// (RFC 4648 §6, uppercase, no padding) of b, written XXXXX-XXXXX. It is
// public: a binding reveals nothing of a key or tag.
func BindingCode(b [32]byte) string {
	s := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])[:bindingCodeChars]
	return s[:bindingCodeChars/2] + "-" + s[bindingCodeChars/2:]
}

// UnverifiedApproval is an approval caveat of a ticket as its bytes say,
// before any signature is checked: the block holding it, who must approve,
// and the block's binding (spec/FORMAT.md §4.6).
type UnverifiedApproval struct {
	Block    int
	Approver caveat.Approver
	Binding  [32]byte
}

// UnverifiedApprovals returns the ticket's approvals in force, by the
// block where each approval's nonce first appears, ascending, each with
// that block's binding, which its discharges carry; an approval restated
// in a later block (the same nonce, spec/FORMAT.md §4.6) is given as its
// latest restatement says. This is what an approver, a holder asking for
// approvals, or a tool showing them needs.
func (t *Ticket) UnverifiedApprovals() []UnverifiedApproval {
	var out []UnverifiedApproval
	for j := range t.blocks {
		for k := range t.blocks[j].Caveats {
			c := &t.blocks[j].Caveats[k]
			if c.Kind != caveat.Approval || c.Approver == nil {
				continue
			}
			if i := slices.IndexFunc(out, func(a UnverifiedApproval) bool { return a.Approver.Nonce == c.Approver.Nonce }); i >= 0 {
				out[i].Approver = *c.Approver
				continue
			}
			if bind, err := t.Binding(j); err == nil {
				out = append(out, UnverifiedApproval{Block: j, Approver: *c.Approver, Binding: bind})
			}
		}
	}
	return out
}
