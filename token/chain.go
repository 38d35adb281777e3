package token

import (
	"crypto/ed25519"

	"github.com/tickettool/tickettool/key"
)

// Verified is what VerifyChain vouches for: the blocks of a ticket whose every
// tag or signature (and seal) verified under the root key.
type Verified struct {
	Blocks   []Block   // verified blocks, block 0 first
	IDs      []BlockID // the id of each block (revocation and budget keys)
	FamilyID []byte    // block 0's ticket id, shared by every descendant
	Sealed   bool
}

// TicketID returns the id of the whole ticket: the id of its last block.
// A zero [Verified] has none: the zero [BlockID].
func (c *Verified) TicketID() BlockID {
	if len(c.IDs) == 0 {
		return BlockID{}
	}
	return c.IDs[len(c.IDs)-1]
}

// VerifyChain checks the ticket's chain under key: the key must have the id
// and mode block 0 names (else [ErrKeyMismatch]), and every tag or signature,
// and the seal if any, must verify (else [ErrChain]). HMAC tags are compared
// in constant time. The error never reveals a tag or key; with an error
// the [Verified] is always the zero Verified. A zero [Ticket] (not made by [Parse],
// [Decode], [Mint] or Attenuate) is [ErrMalformed].
func (t *Ticket) VerifyChain(k *key.Verifying) (Verified, error) {
	return t.verifyChain(k, true)
}

// VerifyChainWithoutIDs is [Ticket.VerifyChain] for a caller that needs no
// block ids: the chain is checked alike, and the [Verified] has no IDs
// (nil; its TicketID is the zero id). An HMAC block id is derived from the
// block's tag (spec/FORMAT.md §4.1), which must not outlive the chain
// check, so ids are computed during it or never; this skips one SHA-256
// per block for verifiers that keep no revocations, budgets or receipts.
func (t *Ticket) VerifyChainWithoutIDs(k *key.Verifying) (Verified, error) {
	return t.verifyChain(k, false)
}

func (t *Ticket) verifyChain(k *key.Verifying, withIDs bool) (Verified, error) {
	if len(t.blocks) == 0 {
		return Verified{}, errEmpty()
	}
	if k == nil {
		return Verified{}, &Error{Block: -1, Reason: "no key", Err: ErrKeyMismatch}
	}
	b0 := &t.blocks[0]
	if k.ID() != b0.KeyID {
		return Verified{}, &Error{Block: 0, Reason: "ticket names another key id", Err: ErrKeyMismatch}
	}
	if k.Alg() != b0.Alg {
		return Verified{}, &Error{Block: 0, Reason: "ticket is " + b0.Alg.String() + " but the key is " + k.Alg().String(), Err: ErrKeyMismatch}
	}
	c := Verified{Blocks: t.blocks, FamilyID: b0.TicketID, Sealed: t.seal != nil}
	if withIDs {
		c.IDs = t.idRoom()
	}
	var err error
	if k.Alg() == key.HMACSHA256 {
		err = t.verifyHMAC(k, c.IDs)
	} else {
		err = t.verifyEd25519(k, c.IDs)
	}
	if err != nil {
		return Verified{}, err
	}
	return c, nil
}

func (t *Ticket) verifyHMAC(root *key.Verifying, ids []BlockID) error {
	var buf [len(labelHMACKey) + TicketIDBytes]byte
	k, ok := root.MAC(append(append(buf[:0], labelHMACKey...), t.blocks[0].TicketID...))
	if !ok {
		return &Error{Block: -1, Reason: "no hmac key", Err: ErrKeyMismatch}
	}
	// k holds the derived key, then each tag; s the seal's tag. Both are
	// secrets (the last tag is the appending key a seal hides) and are
	// cleared before returning, like the pooled state.
	var s [tagBytes]byte
	defer clear(k[:])
	defer clear(s[:])
	m := getMAC()
	defer putMAC(m)
	for i := range t.blocks {
		k = m.tag(k[:], bLabelHMACBlock, t.blocks[i].raw, nil)
		if ids != nil {
			ids[i] = blockID(k[:])
		}
	}
	want, got := k[:], t.tail
	if t.seal != nil {
		s = m.tag(k[:], bLabelHMACSeal, nil, nil)
		want, got = s[:], t.seal
	}
	if !equalTag(want, got) {
		return &Error{Block: -1, Reason: "hmac tag does not verify", Err: ErrChain}
	}
	return nil
}

func (t *Ticket) verifyEd25519(root *key.Verifying, ids []BlockID) error {
	var buf [1024]byte
	msg := buf[:0]
	var pub ed25519.PublicKey // the next key; block 0 verifies under root
	var prev []byte
	for i := range t.blocks {
		msg = append(append(append(msg[:0], labelEdBlock...), prev...), t.blocks[i].raw...)
		if i == 0 && !root.Verify(msg, t.sigs[i]) || i > 0 && !ed25519.Verify(pub, msg, t.sigs[i]) {
			return &Error{Block: i, Reason: "signature does not verify", Err: ErrChain}
		}
		if ids != nil {
			ids[i] = blockID(t.sigs[i])
		}
		prev, pub = t.sigs[i], t.blocks[i].NextKey
	}
	if t.seal != nil {
		msg = append(append(msg[:0], labelEdSeal...), prev...)
		if !ed25519.Verify(pub, msg, t.seal) {
			return &Error{Block: -1, Reason: "seal signature does not verify", Err: ErrChain}
		}
		return nil
	}
	// The tail must be the private key of the last block's next key: it is
	// the proof that the ticket ends where its holder received it. Without
	// this check, dropping the last blocks (and so their caveats) would leave
	// a chain of valid signatures.
	if !seedMatches(t.tail, pub) {
		return &Error{Block: -1, Reason: "next private key does not match the last block", Err: ErrChain}
	}
	return nil
}

// seedMatches reports whether seed is the private key of pub. An
// ed25519.PrivateKey is the seed followed by its public key (package
// crypto/ed25519), so no public key value needs building; the derived key
// is cleared after the comparison.
func seedMatches(seed []byte, pub ed25519.PublicKey) bool {
	priv := ed25519.NewKeyFromSeed(seed)
	ok := pub.Equal(ed25519.PublicKey(priv[ed25519.SeedSize:]))
	clear(priv)
	return ok
}
