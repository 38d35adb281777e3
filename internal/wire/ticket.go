package wire

import (
	"strconv"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
)

// Ticket is a ticket's envelope (spec/FORMAT.md §2): a CBOR map with
// integer keys. Marshal writes it; ReadTicket reads it.
type Ticket struct {
	Version uint64            `cbor:"1,keyasint"`
	Blocks  [][]byte          `cbor:"2,keyasint"`           // each block's exact bytes
	Sigs    [][]byte          `cbor:"3,keyasint,omitempty"` // Ed25519: one signature per block
	Tail    []byte            `cbor:"4,keyasint,omitempty"` // the last tag, or the last next key's seed
	Seal    []byte            `cbor:"5,keyasint,omitempty"` // the seal tag or signature
	Holder  map[uint64][]byte `cbor:"6,keyasint,omitempty"` // block index → holder signature
}

// Block is a block (spec/FORMAT.md §3): a CBOR map with integer keys.
// Marshal writes it, with the caveat values written by EncodeCaveat;
// ReadBlock reads it and decodes the caveats.
type Block struct {
	Mode    uint64                     `cbor:"1,keyasint,omitempty"` // block 0
	KeyID   string                     `cbor:"2,keyasint,omitempty"` // block 0
	ID      []byte                     `cbor:"3,keyasint,omitempty"` // block 0: the ticket id
	Caveats map[uint64]cbor.RawMessage `cbor:"4,keyasint"`           // kind → value, always present
	Next    []byte                     `cbor:"5,keyasint,omitempty"` // Ed25519: the next public key
	Rebind  []byte                     `cbor:"6,keyasint,omitempty"` // the previous holder's JWK
}

// TicketRoom is room for the blocks of a typical ticket, so that reading
// them allocates nothing.
type TicketRoom struct {
	blocks [8][]byte
	offs   [8]int
	sigs   [8][]byte
}

// Parts are the lists of a ticket's envelope that ReadTicket returns
// apart from the Ticket, in a TicketRoom when they fit, so that the
// caller's room can stay on its stack: Blocks[i] aliases the data at
// offset Offsets[i], Sigs[i] aliases it too. A caller that keeps the
// lists (not their elements) beyond the room copies them.
type Parts struct {
	Blocks  [][]byte
	Offsets []int
	Sigs    [][]byte
}

// ReadTicket reads a ticket's envelope from data in one pass, refusing
// non-canonical CBOR, unknown fields, wrong types, fields present with an
// empty value and a missing version or blocks field; what the fields mean
// is the caller's to check. It returns the blocks and signatures in p, in
// room when they fit; t's Blocks and Sigs are nil. Errors are *Error.
func ReadTicket(data []byte, room *TicketRoom) (t Ticket, p Parts, err error) {
	seen := 0
	empty := false
	var prev uint64
	r := NewReader(data, TicketLimits())
	for n := r.Map(); n > 0 && !r.Failed(); n-- {
		k := r.Uint()
		if r.Failed() {
			break
		}
		if seen != 0 && k <= prev {
			return t, Parts{}, refuse("fields are not in canonical order or repeat")
		}
		prev = k
		switch k {
		case 1:
			t.Version = r.Uint()
		case 2:
			p.Blocks, p.Offsets = readBlocks(&r, room)
			empty = empty || len(p.Blocks) == 0
		case 3:
			p.Sigs = readByteStrings(&r, room.sigs[:0])
			empty = empty || len(p.Sigs) == 0
		case 4:
			t.Tail = r.Bytes()
			empty = empty || len(t.Tail) == 0
		case 5:
			t.Seal = r.Bytes()
			empty = empty || len(t.Seal) == 0
		case 6:
			var ordered bool
			if t.Holder, ordered = readHolderSigs(&r); !ordered {
				return t, Parts{}, refuse("holder signatures are not in canonical order or repeat")
			}
			empty = empty || len(t.Holder) == 0
		default:
			return t, Parts{}, refuse("unknown field " + strconv.FormatUint(k, 10))
		}
		seen |= 1 << k
	}
	switch {
	case r.Failed():
		return t, Parts{}, r.Err()
	case !r.Done():
		return t, Parts{}, refuse("trailing bytes after the ticket")
	case seen&(1<<1|1<<2) != 1<<1|1<<2:
		return t, Parts{}, refuse("version or blocks missing")
	case empty:
		return t, Parts{}, refuse("field present with an empty value")
	}
	return t, p, nil
}

// refuse returns an *Error without an offset.
func refuse(reason string) error { return &Error{Offset: -1, Reason: reason} }

// readBlocks reads the array of blocks and the offset of each, in room
// when they fit.
func readBlocks(r *Reader, room *TicketRoom) ([][]byte, []int) {
	n := r.Array()
	if n == 0 {
		return nil, nil
	}
	raw, offs := room.blocks[:0], room.offs[:0]
	if n > len(room.blocks) {
		raw, offs = make([][]byte, 0, n), make([]int, 0, n)
	}
	for ; n > 0 && !r.Failed(); n-- {
		b := r.Bytes()
		raw, offs = append(raw, b), append(offs, r.Offset()-len(b))
	}
	return raw, offs
}

// readByteStrings reads an array of byte strings, into room when they fit.
func readByteStrings(r *Reader, room [][]byte) [][]byte {
	n := r.Array()
	if n == 0 {
		return nil
	}
	out := room[:0]
	if n > cap(room) {
		out = make([][]byte, 0, n)
	}
	for ; n > 0 && !r.Failed(); n-- {
		out = append(out, r.Bytes())
	}
	return out
}

// readHolderSigs reads field 6: block index → holder signature. It
// reports false if the indices do not strictly ascend (canonical order).
func readHolderSigs(r *Reader) (map[uint64][]byte, bool) {
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

// ReadBlock reads the block that lies at data[off:end] in one pass, its
// caveat map with dec, which reads data. It refuses non-canonical CBOR,
// unknown fields, values of the wrong type, fields present with an empty
// value and a missing caveat map; what the fields mean is the caller's to
// check. It returns the block without its Caveats map, and the caveats
// decoded (nil when the map is empty). Its byte strings alias data; its
// key id is a substring of dec's one string (CaveatDecoder). An
// error is a *caveat.Error for a caveat map or value at fault, else an
// *Error.
func ReadBlock(data []byte, off, end int, dec *CaveatDecoder) (Block, []caveat.Caveat, error) {
	var b Block
	var cavs []caveat.Caveat
	var prev uint64
	hasCavs := false
	r := NewReader(data[off:end], TicketLimits())
	for n, j := r.Map(), 0; j < n && !r.Failed(); j++ {
		k := r.Uint()
		if r.Failed() {
			break
		}
		if j > 0 && k <= prev {
			return b, nil, refuse("fields are not in canonical order or repeat")
		}
		prev = k
		switch k {
		case 1:
			if b.Mode = r.Uint(); b.Mode == 0 && !r.Failed() {
				return b, nil, refuse("field present with an empty value")
			}
		case 2:
			id := r.Text()
			if len(id) == 0 && !r.Failed() {
				return b, nil, refuse("field present with an empty value")
			}
			if !r.Failed() {
				at := off + r.Offset()
				b.KeyID = dec.src.sub(at-len(id), at)
			}
		case 3:
			b.ID = r.Bytes()
		case 4:
			if r.Peek() != 5 {
				return b, nil, refuse("caveats are not a map")
			}
			var next int
			var err error
			if cavs, next, err = dec.DecodeMap(off+r.Offset(), end); err != nil {
				return b, nil, err
			}
			hasCavs = true
			r.Seek(next - off)
		case 5:
			b.Next = r.Bytes()
		case 6:
			b.Rebind = r.Bytes()
		default:
			return b, nil, refuse("unknown field " + strconv.FormatUint(k, 10))
		}
		if (b.ID != nil && len(b.ID) == 0) || (b.Next != nil && len(b.Next) == 0) || (b.Rebind != nil && len(b.Rebind) == 0) {
			return b, nil, refuse("field present with an empty value")
		}
	}
	switch {
	case r.WrongType():
		return b, nil, refuse("a field or key has the wrong CBOR type")
	case r.Failed():
		return b, nil, r.Err()
	case !r.Done():
		return b, nil, refuse("trailing bytes after the block")
	case !hasCavs:
		return b, nil, refuse("no caveat map")
	}
	return b, cavs, nil
}
