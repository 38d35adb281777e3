package token

import (
	"crypto/ed25519"
	"strconv"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/smallorder"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// Block is one decoded block. Fields marked "block 0" are set only there.
type Block struct {
	Alg      key.Alg           // block 0: the chaining algorithm (HMACSHA256 or Ed25519), the mode on the wire
	KeyID    string            // block 0: the root key id
	TicketID []byte            // block 0: 16 random bytes shared by every descendant (the family id)
	Caveats  []caveat.Caveat   // at most one per kind, in kind order
	NextKey  ed25519.PublicKey // Ed25519 mode: the key that signs the next block or the seal

	// RebindJWK is set in a block that rebinds a bound ticket: the public
	// JWK (JSON) of the holder it was bound to before, whose signature
	// (RebindSig, carried in the ticket beside the block) authorises it.
	RebindJWK []byte
	RebindSig []byte

	raw []byte
}

// Bytes returns the block's exact encoding, which its tag or signature
// covers. The caller must not modify it.
func (b *Block) Bytes() []byte { return b.raw }

// encodeBlock fills b.raw from the other fields. Caveats must be valid and
// at most one per kind.
func encodeBlock(b *Block) error {
	w := wire.Block{Mode: wireMode(b.Alg), KeyID: b.KeyID, ID: b.TicketID, Next: b.NextKey, Rebind: b.RebindJWK,
		Caveats: make(map[uint64]cbor.RawMessage, len(b.Caveats))}
	for _, c := range b.Caveats {
		v, err := wire.EncodeCaveat(c)
		if err != nil {
			return err // caveat's own error (caveat.ErrSyntax), prefixed once
		}
		w.Caveats[uint64(c.Kind)] = v
	}
	raw, err := wire.Marshal(w)
	if err != nil {
		return malformed(-1, "cannot encode the block")
	}
	b.raw = raw
	return nil
}

// setBlock checks block i as wire.ReadBlock read it (w, its caveats cavs,
// its bytes raw) against the blocks before it and the envelope's holder
// signatures, and sets it.
func (t *Ticket) setBlock(i int, w wire.Block, cavs []caveat.Caveat, raw []byte, holder map[uint64][]byte) error {
	b := &t.blocks[i]
	*b = Block{Alg: algOfMode(w.Mode), TicketID: w.ID, RebindJWK: w.Rebind, raw: raw}
	alg := b.Alg
	if i == 0 {
		if b.Alg == 0 {
			return malformed(0, "unknown or missing mode")
		}
		b.KeyID = w.KeyID
		if reason := keyIDProblem(b.KeyID); reason != "" {
			return malformed(0, reason)
		}
		if len(b.TicketID) != TicketIDBytes {
			return malformed(0, "ticket id must be 16 bytes")
		}
	} else if w.Mode != 0 || w.KeyID != "" || len(w.ID) > 0 {
		return malformed(i, "mode, key id and ticket id belong in block 0 only")
	} else {
		alg = t.blocks[0].Alg
	}
	switch {
	case alg == key.Ed25519 && len(w.Next) != ed25519.PublicKeySize:
		return malformed(i, "ed25519 block needs a 32-byte next key")
	case alg == key.HMACSHA256 && len(w.Next) != 0:
		return malformed(i, "hmac block has a next key")
	case smallorder.Is(w.Next):
		return malformed(i, "ed25519 next key is a point of small order")
	}
	if len(w.Next) > 0 {
		b.NextKey = ed25519.PublicKey(w.Next)
	}
	if len(cavs) > 0 {
		b.Caveats = cavs
	}
	if hasKind(b.Caveats, caveat.Approval) && t.approvals(i+1) > MaxApprovals {
		return malformed(i, "more than "+strconv.Itoa(MaxApprovals)+" approval caveats in one ticket")
	}
	if len(b.RebindJWK) > 0 {
		if i == 0 {
			return malformed(0, "block 0 cannot rebind")
		}
		if !hasKind(b.Caveats, caveat.Holder) {
			return malformed(i, "a rebinding block must name the new holder")
		}
	}
	sig, ok := holder[uint64(i)]
	switch {
	case ok != (len(b.RebindJWK) > 0):
		return malformed(i, "a rebinding block needs exactly one holder signature, and only it")
	case ok && (len(sig) == 0 || len(sig) > MaxRebindSigBytes):
		return malformed(i, "holder signature has a bad length")
	}
	b.RebindSig = sig
	return nil
}

// approvals counts the approval caveats of blocks 0 … n−1.
func (t *Ticket) approvals(n int) int {
	count := 0
	for i := range n {
		if hasKind(t.blocks[i].Caveats, caveat.Approval) {
			count++
		}
	}
	return count
}

func hasKind(cs []caveat.Caveat, k caveat.Kind) bool {
	for _, c := range cs {
		if c.Kind == k {
			return true
		}
	}
	return false
}
