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
	w, parts, err := wire.ReadTicket(data, &room)
	if err != nil {
		return nil, malformed(-1, err.Error())
	}
	t, rm, err := newTicketFor(w.Version, len(parts.Blocks), w.Tail, w.Seal)
	if err != nil {
		return nil, err
	}
	dec := wire.NewCaveatDecoder(data, rm.cavs)
	dec.UseEntries(rm.entries)
	for i, raw := range parts.Blocks {
		off := parts.Offsets[i]
		b, cavs, err := wire.ReadBlock(data, off, off+len(raw), &dec)
		if err != nil {
			return nil, blockError(i, err)
		}
		if err := t.setBlock(i, b, cavs, raw, w.Holder); err != nil {
			return nil, err
		}
	}
	if err := t.checkSigs(parts.Sigs, w.Holder); err != nil {
		return nil, err
	}
	if len(parts.Sigs) > 0 { // parts.Sigs is in room, which stays on this stack
		t.sigs = append(rm.sigs, parts.Sigs...)
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
// caveats and signatures. It takes the fields, not the wire.Ticket, so
// that the room ReadTicket put the blocks in stays on the caller's stack.
func newTicketFor(version uint64, n int, tail, seal []byte) (*Ticket, ticketRoom, error) {
	if err := checkEnvelope(version, n, tail, seal); err != nil {
		return nil, ticketRoom{}, err
	}
	t, room := newTicket(n)
	t.tail, t.seal = tail, seal
	return t, room, nil
}

// checkEnvelope checks the envelope's fields that do not depend on the
// blocks' contents.
func checkEnvelope(version uint64, n int, tail, seal []byte) error {
	switch {
	case version != FormatVersion:
		return malformed(-1, "unsupported format version")
	case n == 0:
		return malformed(-1, "no blocks")
	case n > MaxBlocks:
		return malformed(-1, "more blocks than the limit")
	case (len(tail) > 0) == (len(seal) > 0):
		return malformed(-1, "needs exactly one of tail and seal")
	}
	return nil
}

// checkSigs checks the envelope's signatures (wire.Ticket's Sigs and
// Holder) against the blocks, which are set; the caller keeps them.
func (t *Ticket) checkSigs(sigs [][]byte, holder map[uint64][]byte) error {
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
	return nil
}

// smallTicket holds a typical ticket, its blocks and room for its
// caveats, list entries and signatures in one allocation: up to four
// blocks, four caveats and eight entries, which is how attenuation
// usually grows a ticket. Larger tickets take more.
type smallTicket struct {
	t       Ticket
	blocks  [4]Block
	cavs    [4]caveat.Caveat
	entries [8]string
	sigs    [4][]byte
}

// ticketRoom is where a decoded ticket's caveats, list entries and
// signatures go first (nil: allocate).
type ticketRoom struct {
	cavs    []caveat.Caveat
	entries []string
	sigs    [][]byte
}

// newTicket returns a ticket with n blocks and room for its first
// caveats and its signatures.
func newTicket(n int) (*Ticket, ticketRoom) {
	if n <= len(smallTicket{}.blocks) {
		s := new(smallTicket)
		s.t.blocks = s.blocks[:n:n]
		return &s.t, ticketRoom{cavs: s.cavs[:], entries: s.entries[:], sigs: s.sigs[:0:n]}
	}
	return &Ticket{blocks: make([]Block, n)}, ticketRoom{}
}
