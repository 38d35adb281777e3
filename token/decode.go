package token

import (
	"crypto/ed25519"
	"errors"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// decodeOwned is Decode for bytes nobody else holds. It reads them in one
// pass: wire.ReadTicket and wire.ReadBlock check the canonical form of
// every item as they read it, and the checks below what the fields mean.
func decodeOwned(data []byte) (*Ticket, error) {
	var room wire.TicketRoom
	w, blocks, offs, err := wire.ReadTicket(data, &room)
	if err != nil {
		return nil, malformed(-1, err.Error())
	}
	t, cavRoom, err := newTicketFor(w.Version, len(blocks), w.Tail, w.Seal)
	if err != nil {
		return nil, err
	}
	dec := wire.NewCaveatDecoder(data, cavRoom)
	for i, raw := range blocks {
		b, cavs, err := wire.ReadBlock(data, offs[i], offs[i]+len(raw), &dec)
		if err != nil {
			return nil, blockError(i, err)
		}
		if err := t.setBlock(i, b, cavs, raw, w.Holder); err != nil {
			return nil, err
		}
	}
	if err := t.setSigs(w.Sigs, w.Holder); err != nil {
		return nil, err
	}
	return t, nil
}

// blockError is the error of block i that wire.ReadBlock refused.
func blockError(i int, err error) error {
	var ce *caveat.Error
	if errors.As(err, &ce) {
		return fromCaveat(i, err, ErrMalformed)
	}
	return malformed(i, err.Error())
}

// newTicketFor checks the envelope's fields that do not depend on the
// blocks' contents (wire.Ticket's version, number of blocks, tail and
// seal) and returns a ticket with room for n blocks and for their first
// caveats. It takes the fields, not the wire.Ticket, so that the room
// ReadTicket put the blocks in stays on the caller's stack.
func newTicketFor(version uint64, n int, tail, seal []byte) (*Ticket, []caveat.Caveat, error) {
	switch {
	case version != FormatVersion:
		return nil, nil, malformed(-1, "unsupported format version")
	case n == 0:
		return nil, nil, malformed(-1, "no blocks")
	case n > MaxBlocks:
		return nil, nil, malformed(-1, "more blocks than the limit")
	case (len(tail) > 0) == (len(seal) > 0):
		return nil, nil, malformed(-1, "needs exactly one of tail and seal")
	}
	t, room := newTicket(n)
	t.tail, t.seal = tail, seal
	return t, room, nil
}

// setSigs checks the envelope's signatures (wire.Ticket's Sigs and Holder)
// against the blocks, which are set, and keeps them.
func (t *Ticket) setSigs(sigs [][]byte, holder map[uint64][]byte) error {
	for k := range holder {
		if k >= uint64(len(t.blocks)) {
			return malformed(-1, "holder signature for a block that does not exist")
		}
	}
	if t.blocks[0].Alg == key.HMACSHA256 {
		switch {
		case len(sigs) != 0:
			return malformed(-1, "hmac ticket carries signatures")
		case len(t.tail) != 0 && len(t.tail) != tagBytes, len(t.seal) != 0 && len(t.seal) != tagBytes:
			return malformed(-1, "hmac tag must be 32 bytes")
		}
		return nil
	}
	switch {
	case len(sigs) != len(t.blocks):
		return malformed(-1, "needs one signature per block")
	case len(t.tail) != 0 && len(t.tail) != ed25519.SeedSize:
		return malformed(-1, "next private key must be 32 bytes")
	case len(t.seal) != 0 && len(t.seal) != ed25519.SignatureSize:
		return malformed(-1, "seal signature must be 64 bytes")
	}
	for i, s := range sigs {
		if len(s) != ed25519.SignatureSize {
			return malformed(i, "signature must be 64 bytes")
		}
	}
	t.sigs = sigs
	return nil
}

// smallTicket holds a typical ticket, its blocks and room for its
// caveats in one allocation: up to four blocks and four caveats, which is
// how attenuation usually grows a ticket. Larger tickets take more.
type smallTicket struct {
	t      Ticket
	blocks [4]Block
	cavs   [4]caveat.Caveat
}

// newTicket returns a ticket with n blocks and room for its first
// caveats.
func newTicket(n int) (*Ticket, []caveat.Caveat) {
	if n <= len(smallTicket{}.blocks) {
		s := new(smallTicket)
		s.t.blocks = s.blocks[:n:n]
		return &s.t, s.cavs[:]
	}
	return &Ticket{blocks: make([]Block, n)}, nil
}
