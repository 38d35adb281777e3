package token

import (
	"encoding/base64"

	"github.com/tickettool/tickettool/key"
)

const labelRebind = "tickettool/v1 rebind\x00"

// RebindMessage returns the bytes a rebinding signature covers: a domain
// label, the id of the block before (binding the chain so far) and the
// exact bytes of the rebinding block (which carry the signer's JWK and the
// new holder caveat).
func RebindMessage(prev BlockID, block []byte) []byte {
	m := make([]byte, 0, len(labelRebind)+len(prev)+len(block))
	return append(append(append(m, labelRebind...), prev[:]...), block...)
}

// lastID is the id of the ticket's last block, computed from the tail the
// holder carries.
func (t *Ticket) lastID() BlockID {
	if len(t.sigs) > 0 {
		return blockID(t.sigs[len(t.sigs)-1])
	}
	return blockID(t.tail)
}

// signRebind fills in b's rebinding JWK and returns the signature, after
// checking that signer is the ticket's current holder (spec/FORMAT.md
// §4.4): the signature is in the JWS form of the key's algorithm.
func signRebind(t *Ticket, n int, current []byte, b *Block, signer *key.Holder) ([]byte, error) {
	if signer == nil {
		return nil, &Error{Block: n, Reason: "the ticket is bound: rebinding needs the current holder's key", Err: ErrHolder}
	}
	if signer.Thumbprint() != base64.RawURLEncoding.EncodeToString(current) {
		return nil, &Error{Block: n, Reason: "the key given is not the ticket's current holder", Err: ErrHolder}
	}
	b.RebindJWK = signer.Public().JWK()
	if err := encodeBlock(b); err != nil {
		return nil, err
	}
	sig, err := signer.Sign(RebindMessage(t.lastID(), b.raw))
	if err != nil {
		return nil, &Error{Block: n, Reason: "holder signature: " + err.Error(), Err: ErrHolder}
	}
	if len(sig) == 0 || len(sig) > MaxRebindSigBytes {
		return nil, &Error{Block: n, Reason: "holder signature has a bad length", Err: ErrHolder}
	}
	return sig, nil
}

// UnverifiedLastID returns the id of the ticket's last block as its holder
// can compute it (from the HMAC tail tag or the last Ed25519 signature),
// for receipts written where the ticket is made. A sealed HMAC ticket no
// longer carries its last tag: ok is false then.
func (t *Ticket) UnverifiedLastID() (id BlockID, ok bool) {
	if len(t.sigs) == 0 && t.tail == nil {
		return BlockID{}, false
	}
	return t.lastID(), true
}
