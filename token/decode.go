package token

import (
	"crypto/ed25519"
	"fmt"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/strictcbor"
	"github.com/tickettool/tickettool/key"
)

// smallBlocks is room for the blocks of a typical ticket, so that reading
// them allocates nothing.
type smallBlocks struct {
	blocks [8][]byte
	offs   [8]int
}

// decodeOwned is Decode for bytes nobody else holds. It reads them in one
// pass: strictcbor.Reader checks the canonical form of every item as it
// reads it, and the readers below check what it leaves to them (map keys
// ascend; each shape is fixed, so nesting is bounded).
func decodeOwned(data []byte) (*Ticket, error) {
	var room smallBlocks
	f, blocks, err := readTicket(data, &room)
	if err != nil {
		return nil, err
	}
	return ticketFromFields(f, blocks, data, nil)
}

// readTicket reads the envelope's fields (spec/FORMAT.md §2), refusing
// non-canonical CBOR, unknown fields, wrong types and empty values. It
// returns the blocks apart from w, in room when they fit: blocks[i]
// aliases data at offset blocks.offs[i].
func readTicket(data []byte, room *smallBlocks) (w wireTicket, blocks ticketBlocks, err error) {
	seen := 0
	empty := false
	var prev uint64
	r := strictcbor.NewReader(data, strictcbor.TicketLimits())
	for n := r.Map(); n > 0 && !r.Failed(); n-- {
		k := r.Uint()
		if r.Failed() {
			break
		}
		if seen != 0 && k <= prev {
			return w, blocks, malformed(-1, "fields are not in canonical order or repeat")
		}
		prev = k
		switch k {
		case 1:
			w.Version = r.Uint()
		case 2:
			blocks = readBlocks(&r, room)
			empty = empty || len(blocks.raw) == 0
		case 3:
			w.Sigs = readByteStrings(&r)
			empty = empty || len(w.Sigs) == 0
		case 4:
			w.Tail = r.Bytes()
			empty = empty || len(w.Tail) == 0
		case 5:
			w.Seal = r.Bytes()
			empty = empty || len(w.Seal) == 0
		case 6:
			var ordered bool
			if w.Holder, ordered = readHolderSigs(&r); !ordered {
				return w, blocks, malformed(-1, "holder signatures are not in canonical order or repeat")
			}
			empty = empty || len(w.Holder) == 0
		default:
			return w, blocks, malformed(-1, fmt.Sprintf("unknown field %d", k))
		}
		seen |= 1 << k
	}
	switch {
	case r.Failed():
		return w, blocks, malformed(-1, r.Err().Error())
	case !r.Done():
		return w, blocks, malformed(-1, "trailing bytes after the ticket")
	case seen&(1<<1|1<<2) != 1<<1|1<<2:
		return w, blocks, malformed(-1, "version or blocks missing")
	case empty:
		return w, blocks, malformed(-1, "field present with an empty value")
	}
	return w, blocks, nil
}

// ticketBlocks are the blocks of a ticket and, when they alias the bytes
// read (readTicket), the offset of each in them.
type ticketBlocks struct {
	raw  [][]byte
	offs []int // nil when the blocks do not alias the bytes read
}

// readBlocks reads the array of blocks and the offset of each, in room
// when they fit.
func readBlocks(r *strictcbor.Reader, room *smallBlocks) ticketBlocks {
	n := r.Array()
	if n == 0 {
		return ticketBlocks{}
	}
	raw, offs := room.blocks[:0], room.offs[:0]
	if n > len(room.blocks) {
		raw, offs = make([][]byte, 0, n), make([]int, 0, n)
	}
	for ; n > 0 && !r.Failed(); n-- {
		b := r.Bytes()
		raw, offs = append(raw, b), append(offs, r.Offset()-len(b))
	}
	return ticketBlocks{raw, offs}
}

func readByteStrings(r *strictcbor.Reader) [][]byte {
	n := r.Array()
	if n == 0 {
		return nil
	}
	out := make([][]byte, 0, n)
	for ; n > 0 && !r.Failed(); n-- {
		out = append(out, r.Bytes())
	}
	return out
}

// readHolderSigs reads field 6: block index → holder signature. It
// reports false if the indices do not strictly ascend (canonical order).
func readHolderSigs(r *strictcbor.Reader) (map[uint64][]byte, bool) {
	n := r.Map()
	m := make(map[uint64][]byte, n)
	var prev uint64
	for i := 0; i < n && !r.Failed(); i++ {
		k := r.Uint()
		if i > 0 && k <= prev && !r.Failed() {
			return nil, false
		}
		prev = k
		m[k] = r.Bytes()
	}
	return m, true
}

// ticketFromFields checks the envelope's fields and decodes every block.
// Blocks that alias data (blocks.offs) are read in place by readBlock, in
// one pass with their caveats; otherwise read reads them.
func ticketFromFields(w wireTicket, blocks ticketBlocks, data []byte, read func(raw []byte, i int) (blockFields, error)) (*Ticket, error) {
	switch {
	case w.Version != FormatVersion:
		return nil, malformed(-1, "unsupported format version")
	case len(blocks.raw) == 0:
		return nil, malformed(-1, "no blocks")
	case len(blocks.raw) > MaxBlocks:
		return nil, malformed(-1, "more blocks than the limit")
	case (len(w.Tail) > 0) == (len(w.Seal) > 0):
		return nil, malformed(-1, "needs exactly one of tail and seal")
	}
	t, room := newTicket(len(blocks.raw))
	t.tail, t.seal = w.Tail, w.Seal
	dec := caveat.NewDecoder(data, room)
	var alg key.Alg
	for i, raw := range blocks.raw {
		var f blockFields
		var err error
		if blocks.offs != nil {
			f, err = readBlock(raw, blocks.offs[i], i, &dec)
		} else {
			f, err = read(raw, i)
		}
		if err != nil {
			return nil, err
		}
		b := &t.blocks[i]
		if err := blockFromFields(b, f, raw, i, alg); err != nil {
			return nil, err
		}
		if i == 0 {
			alg = b.Alg
		}
		if sig, ok := w.Holder[uint64(i)]; ok != (len(b.RebindJWK) > 0) {
			return nil, malformed(i, "a rebinding block needs exactly one holder signature, and only it")
		} else if ok && (len(sig) == 0 || len(sig) > MaxRebindSigBytes) {
			return nil, malformed(i, "holder signature has a bad length")
		} else {
			b.RebindSig = sig
		}
	}
	for k := range w.Holder {
		if k >= uint64(len(blocks.raw)) {
			return nil, malformed(-1, "holder signature for a block that does not exist")
		}
	}
	if alg == key.HMACSHA256 {
		switch {
		case len(w.Sigs) != 0:
			return nil, malformed(-1, "hmac ticket carries signatures")
		case len(w.Tail) != 0 && len(w.Tail) != tagBytes, len(w.Seal) != 0 && len(w.Seal) != tagBytes:
			return nil, malformed(-1, "hmac tag must be 32 bytes")
		}
		return t, nil
	}
	switch {
	case len(w.Sigs) != len(blocks.raw):
		return nil, malformed(-1, "needs one signature per block")
	case len(w.Tail) != 0 && len(w.Tail) != ed25519.SeedSize:
		return nil, malformed(-1, "next private key must be 32 bytes")
	case len(w.Seal) != 0 && len(w.Seal) != ed25519.SignatureSize:
		return nil, malformed(-1, "seal signature must be 64 bytes")
	}
	for i, s := range w.Sigs {
		if len(s) != ed25519.SignatureSize {
			return nil, malformed(i, "signature must be 64 bytes")
		}
	}
	t.sigs = w.Sigs
	return t, nil
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
