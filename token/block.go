package token

import (
	"crypto/ed25519"
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/smallorder"
	"github.com/tickettool/tickettool/internal/strictcbor"
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
	w := wireBlock{Mode: wireMode(b.Alg), KeyID: b.KeyID, ID: b.TicketID, Next: b.NextKey, Rebind: b.RebindJWK,
		Caveats: make(map[uint64]cbor.RawMessage, len(b.Caveats))}
	for _, c := range b.Caveats {
		v, err := c.MarshalValue()
		if err != nil {
			return err // caveat's own error (caveat.ErrSyntax), prefixed once
		}
		w.Caveats[uint64(c.Kind)] = v
	}
	raw, err := strictcbor.Marshal(w)
	if err != nil {
		return malformed(-1, "cannot encode the block")
	}
	b.raw = raw
	return nil
}

// blockFields are a block's fields as read from the wire, before checks.
type blockFields struct {
	mode    uint64
	keyID   []byte
	id      []byte
	cavs    []caveat.Caveat // decoded
	hasCavs bool            // field 4 is present
	next    []byte
	rebind  []byte
}

// readBlock reads a block's fields (spec/FORMAT.md §3) from raw in one
// pass, its caveats with dec, which reads the ticket's bytes: raw lies at
// offset off in them. It refuses non-canonical CBOR, unknown fields,
// values of the wrong type and fields present with an empty value.
func readBlock(raw []byte, off, i int, dec *caveat.Decoder) (blockFields, error) {
	var f blockFields
	var prev uint64
	r := strictcbor.NewReader(raw, strictcbor.TicketLimits())
	for n, j := r.Map(), 0; j < n && !r.Failed(); j++ {
		k := r.Uint()
		if r.Failed() {
			break
		}
		if j > 0 && k <= prev {
			return f, malformed(i, "fields are not in canonical order or repeat")
		}
		prev = k
		switch k {
		case 1:
			if f.mode = r.Uint(); f.mode == 0 && !r.Failed() {
				return f, malformed(i, "field present with an empty value")
			}
		case 2:
			if f.keyID = r.Text(); len(f.keyID) == 0 && !r.Failed() {
				return f, malformed(i, "field present with an empty value")
			}
		case 3:
			f.id = r.Bytes()
		case 4:
			if r.Peek() != 5 {
				return f, malformed(i, "caveats are not a map")
			}
			cavs, next, err := dec.DecodeMap(off+r.Offset(), off+len(raw))
			if err != nil {
				return f, fromCaveat(i, err, ErrMalformed)
			}
			f.cavs, f.hasCavs = cavs, true
			r.Seek(next - off)
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
	switch {
	case r.WrongType():
		return f, malformed(i, "a field or key has the wrong CBOR type")
	case r.Failed():
		return f, malformed(i, r.Err().Error())
	case !r.Done():
		return f, malformed(i, "trailing bytes after the block")
	}
	return f, nil
}

// blockFromFields checks a block's fields and fills b.
func blockFromFields(b *Block, w blockFields, raw []byte, i int, alg key.Alg) error {
	if !w.hasCavs {
		return malformed(i, "no caveat map")
	}
	*b = Block{Alg: algOfMode(w.mode), TicketID: w.id, RebindJWK: w.rebind, raw: raw}
	if i == 0 {
		if b.Alg == 0 {
			return malformed(0, "unknown or missing mode")
		}
		alg = b.Alg
		b.KeyID = string(w.keyID)
		if err := checkKeyID(b.KeyID); err != nil {
			return malformed(0, err.Error()[len("token: "):])
		}
		if len(b.TicketID) != TicketIDBytes {
			return malformed(0, "ticket id must be 16 bytes")
		}
	} else if w.mode != 0 || len(w.keyID) > 0 || len(w.id) > 0 {
		return malformed(i, "mode, key id and ticket id belong in block 0 only")
	}
	switch {
	case alg == key.Ed25519 && len(w.next) != ed25519.PublicKeySize:
		return malformed(i, "ed25519 block needs a 32-byte next key")
	case alg == key.HMACSHA256 && len(w.next) != 0:
		return malformed(i, "hmac block has a next key")
	case smallorder.Is(w.next):
		return malformed(i, "ed25519 next key is a point of small order")
	}
	if len(w.next) > 0 {
		b.NextKey = ed25519.PublicKey(w.next)
	}
	if len(w.cavs) > 0 {
		b.Caveats = w.cavs
	}
	if len(b.RebindJWK) > 0 {
		if i == 0 {
			return malformed(0, "block 0 cannot rebind")
		}
		if !hasKind(b.Caveats, caveat.Holder) {
			return malformed(i, "a rebinding block must name the new holder")
		}
	}
	return nil
}

func hasKind(cs []caveat.Caveat, k caveat.Kind) bool {
	for _, c := range cs {
		if c.Kind == k {
			return true
		}
	}
	return false
}
