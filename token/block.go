package token

import (
	"crypto/ed25519"
	"slices"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/strictcbor"
)

// Block is one decoded block. Fields marked "block 0" are set only there.
type Block struct {
	Mode     Mode              // block 0: the chaining mode
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

// wireBlock is the CBOR form of a block (spec/FORMAT.md §3).
type wireBlock struct {
	Mode    uint64                     `cbor:"1,keyasint,omitempty"`
	KeyID   string                     `cbor:"2,keyasint,omitempty"`
	ID      []byte                     `cbor:"3,keyasint,omitempty"`
	Caveats map[uint64]cbor.RawMessage `cbor:"4,keyasint"`
	Next    []byte                     `cbor:"5,keyasint,omitempty"`
	Rebind  []byte                     `cbor:"6,keyasint,omitempty"`
}

// encodeBlock fills b.raw from the other fields. Caveats must be valid and
// at most one per kind.
func encodeBlock(b *Block) error {
	w := wireBlock{Mode: uint64(b.Mode), KeyID: b.KeyID, ID: b.TicketID, Next: b.NextKey, Rebind: b.RebindJWK,
		Caveats: make(map[uint64]cbor.RawMessage, len(b.Caveats))}
	for _, c := range b.Caveats {
		v, err := c.MarshalValue()
		if err != nil {
			return err
		}
		w.Caveats[uint64(c.Kind)] = v
	}
	raw, err := strictcbor.Marshal(w)
	if err != nil {
		return err
	}
	b.raw = raw
	return nil
}

// mapPairs returns the number of pairs of the canonical map that starts raw
// (already checked by strictcbor), or -1 if raw does not start with a map.
func mapPairs(raw []byte) int {
	if len(raw) == 0 || raw[0]>>5 != 5 {
		return -1
	}
	ai := raw[0] & 0x1f
	switch {
	case ai < 24:
		return int(ai)
	case ai == 24 && len(raw) > 1:
		return int(raw[1])
	case ai == 25 && len(raw) > 2:
		return int(raw[1])<<8 | int(raw[2])
	}
	return -1 // larger maps exceed every limit
}

// decodeBlock decodes the block at index i of a ticket whose block 0 has
// the given mode (ignored for i == 0).
func decodeBlock(raw []byte, i int, mode Mode) (Block, error) {
	var w wireBlock
	if err := strictcbor.Unmarshal(raw, &w, strictcbor.TicketLimits); err != nil {
		return Block{}, malformed(i, err.Error())
	}
	if w.Caveats == nil {
		return Block{}, malformed(i, "no caveat map")
	}
	present := 1
	for _, p := range []bool{w.Mode != 0, w.KeyID != "", len(w.ID) > 0, len(w.Next) > 0, len(w.Rebind) > 0} {
		if p {
			present++
		}
	}
	if mapPairs(raw) != present {
		return Block{}, malformed(i, "field present with an empty value")
	}
	b := Block{Mode: Mode(w.Mode), KeyID: w.KeyID, TicketID: w.ID, RebindJWK: w.Rebind, raw: raw}
	if i == 0 {
		if b.Mode != ModeHMAC && b.Mode != ModeEd25519 {
			return Block{}, malformed(0, "unknown or missing mode")
		}
		mode = b.Mode
		if err := checkKeyID(b.KeyID); err != nil {
			return Block{}, malformed(0, err.Error()[len("token: "):])
		}
		if len(b.TicketID) != TicketIDBytes {
			return Block{}, malformed(0, "ticket id must be 16 bytes")
		}
	} else if w.Mode != 0 || w.KeyID != "" || len(w.ID) > 0 {
		return Block{}, malformed(i, "mode, key id and ticket id belong in block 0 only")
	}
	switch {
	case mode == ModeEd25519 && len(w.Next) != ed25519.PublicKeySize:
		return Block{}, malformed(i, "ed25519 block needs a 32-byte next key")
	case mode == ModeHMAC && len(w.Next) != 0:
		return Block{}, malformed(i, "hmac block has a next key")
	}
	if len(w.Next) > 0 {
		b.NextKey = ed25519.PublicKey(w.Next)
	}
	if len(w.Caveats) > MaxCaveatsPerBlock {
		return Block{}, malformed(i, "too many caveats")
	}
	kinds := make([]uint64, 0, len(w.Caveats))
	for k := range w.Caveats {
		if k == 0 {
			return Block{}, malformed(i, "caveat kind 0 is reserved")
		}
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	b.Caveats = make([]caveat.Caveat, len(kinds))
	for j, k := range kinds {
		c, err := caveat.DecodeValue(caveat.Kind(k), w.Caveats[k])
		if err != nil {
			return Block{}, fromCaveat(i, err, ErrMalformed)
		}
		b.Caveats[j] = c
	}
	if len(b.RebindJWK) > 0 {
		if i == 0 {
			return Block{}, malformed(0, "block 0 cannot rebind")
		}
		if !hasKind(b.Caveats, caveat.Holder) {
			return Block{}, malformed(i, "a rebinding block must name the new holder")
		}
	}
	return b, nil
}

func hasKind(cs []caveat.Caveat, k caveat.Kind) bool {
	for _, c := range cs {
		if c.Kind == k {
			return true
		}
	}
	return false
}
