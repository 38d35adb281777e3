package token

import (
	"crypto/ed25519"
	"fmt"

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

// blockFields are a block's fields as read from the wire, before checks.
type blockFields struct {
	mode    uint64
	keyID   string
	id      []byte
	caveats []byte // the caveat map's exact bytes; nil if field 4 is absent
	ncav    int    // its number of entries
	next    []byte
	rebind  []byte
}

// readBlock reads a block's fields (spec/FORMAT.md §3) from raw, which
// must already have passed strictcbor.Check. It refuses unknown fields,
// values of the wrong type and fields present with an empty value.
func readBlock(raw []byte, i int) (blockFields, error) {
	var f blockFields
	r := strictcbor.NewReader(raw)
	for n := r.Map(); n > 0 && !r.Failed(); n-- {
		switch k := r.Uint(); k {
		case 1:
			if f.mode = r.Uint(); f.mode == 0 {
				return f, malformed(i, "field present with an empty value")
			}
		case 2:
			if f.keyID = string(r.Text()); f.keyID == "" {
				return f, malformed(i, "field present with an empty value")
			}
		case 3:
			f.id = r.Bytes()
		case 4:
			if r.Peek() != 5 {
				return f, malformed(i, "caveats are not a map")
			}
			f.caveats = r.Raw()
			f.ncav = int(f.caveats[0] & 0x1f) // at most 16 entries: a one-byte head (Check)
			if f.caveats[0]&0x1f >= 24 {
				f.ncav = MaxCaveatsPerBlock + 1
			}
		case 5:
			f.next = r.Bytes()
		case 6:
			f.rebind = r.Bytes()
		default:
			return f, malformed(i, fmt.Sprintf("unknown field %d", k))
		}
		if (f.id != nil && len(f.id) == 0) || (f.next != nil && len(f.next) == 0) || (f.rebind != nil && len(f.rebind) == 0) {
			return f, malformed(i, "field present with an empty value")
		}
	}
	if !r.Done() {
		return f, malformed(i, "a field or key has the wrong CBOR type")
	}
	return f, nil
}

// readBlockChecked checks raw's canonical form, then reads its fields.
func readBlockChecked(raw []byte, i int) (blockFields, error) {
	if err := strictcbor.Check(raw, strictcbor.TicketLimits); err != nil {
		return blockFields{}, malformed(i, err.Error())
	}
	return readBlock(raw, i)
}

// blockFromFields checks a block's fields and decodes its caveats into
// cavs, which has room for exactly w.ncav of them.
func blockFromFields(w blockFields, raw []byte, i int, mode Mode, cavs []caveat.Caveat) (Block, error) {
	if w.caveats == nil {
		return Block{}, malformed(i, "no caveat map")
	}
	b := Block{Mode: Mode(w.mode), KeyID: w.keyID, TicketID: w.id, RebindJWK: w.rebind, raw: raw}
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
	} else if w.mode != 0 || w.keyID != "" || len(w.id) > 0 {
		return Block{}, malformed(i, "mode, key id and ticket id belong in block 0 only")
	}
	switch {
	case mode == ModeEd25519 && len(w.next) != ed25519.PublicKeySize:
		return Block{}, malformed(i, "ed25519 block needs a 32-byte next key")
	case mode == ModeHMAC && len(w.next) != 0:
		return Block{}, malformed(i, "hmac block has a next key")
	}
	if len(w.next) > 0 {
		b.NextKey = ed25519.PublicKey(w.next)
	}
	if w.ncav > MaxCaveatsPerBlock {
		return Block{}, malformed(i, "too many caveats")
	}
	if w.ncav > 0 {
		b.Caveats = cavs[:w.ncav:w.ncav]
	}
	r := strictcbor.NewReader(w.caveats)
	r.Map()
	for j := 0; j < w.ncav; j++ {
		kind, val := r.Uint(), r.Raw()
		if r.Failed() {
			return Block{}, malformed(i, "a caveat kind is not an unsigned integer")
		}
		if kind == 0 {
			return Block{}, malformed(i, "caveat kind 0 is reserved")
		}
		c, err := caveat.DecodeValue(caveat.Kind(kind), val)
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
