package token

import (
	"bytes"
)

// HolderSigner signs for a bound ticket's current holder when a block
// rebinds the ticket to a new holder key (spec/FORMAT.md §4.4). The token
// package knows nothing of JOSE; dpop.HolderSigner implements this.
type HolderSigner interface {
	// PublicJWK returns the holder's public JWK (RFC 7517) as JSON.
	PublicJWK() []byte
	// Thumbprint returns the RFC 7638 SHA-256 thumbprint of that JWK.
	Thumbprint() []byte
	// Sign returns a signature over msg in the JWS form of the key's
	// algorithm (RFC 7518 §3.4 r‖s for ES256; RFC 8037 for EdDSA).
	Sign(msg []byte) ([]byte, error)
}

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
// checking that signer is the ticket's current holder.
func signRebind(t *Ticket, n int, current []byte, b *Block, signer HolderSigner) ([]byte, error) {
	if signer == nil {
		return nil, &Error{Block: n, Reason: "the ticket is bound: rebinding needs the current holder's key", Err: ErrHolder}
	}
	if !bytes.Equal(signer.Thumbprint(), current) {
		return nil, &Error{Block: n, Reason: "the key given is not the ticket's current holder", Err: ErrHolder}
	}
	b.RebindJWK = signer.PublicJWK()
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
