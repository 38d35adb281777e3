package token

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/lend"
	"github.com/tickettool/tickettool/internal/wire"
)

// An arena is the pooled memory of one lent ticket (package
// internal/lend): the decoded bytes, and the ticket, blocks, caveats,
// list entries and block ids decoded from them, whose strings are views of
// the bytes rather than copies. A verifier that borrows an arena for one
// verification (verify.VerifyText) makes no allocation in steady state.
// The checks are Parse's own: wire.ReadTicket and wire.ReadBlock, then
// checkEnvelope, setBlock and checkSigs; only where the results live
// differs. An arena never holds an HMAC tag but the ticket's own tail or
// seal, in data, which release clears.
type arena struct {
	t       Ticket
	data    []byte
	room    wire.TicketRoom
	blocks  []Block
	cavs    []caveat.Caveat
	entries []string
	ids     []BlockID
}

var arenas = sync.Pool{New: func() any { return new(arena) }}

func init() {
	lend.Parse = parseLent
	lend.Return = func(v any) {
		if t, ok := v.(*Ticket); ok && t.lent != nil {
			t.lent.release()
		}
	}
}

// parseLent is lend.Parse.
func parseLent(text string) (any, error) {
	a := arenas.Get().(*arena)
	if err := a.parse(text); err != nil {
		a.release()
		return nil, err
	}
	a.t.text = text
	return &a.t, nil
}

// release clears the arena and puts it back in the pool.
func (a *arena) release() {
	clear(a.data[:cap(a.data)])
	a.data = a.data[:0]
	a.t = Ticket{}
	clear(a.blocks)
	arenas.Put(a)
}

func (a *arena) parse(text string) error {
	body, err := textBody(text)
	if err != nil {
		return err
	}
	n := b64.DecodedLen(len(body)) // textBody bounds it
	a.data = slices.Grow(a.data[:0], n)[:n]
	// Decode only reads the string's bytes.
	if n, err = b64.Decode(a.data, unsafe.Slice(unsafe.StringData(body), len(body))); err != nil {
		return textError(body)
	}
	a.data = a.data[:n]
	if n > MaxTicketBytes {
		return malformed(-1, "larger than the size limit")
	}
	return a.decode(a.data)
}

// decode is decodeOwned into the arena.
func (a *arena) decode(data []byte) error {
	w, parts, err := wire.ReadTicket(data, &a.room)
	if err != nil {
		return malformed(-1, err.Error())
	}
	n := len(parts.Blocks)
	if err := checkEnvelope(w.Version, n, w.Tail, w.Seal); err != nil {
		return err
	}
	a.blocks = slices.Grow(a.blocks[:0], n)[:n]
	a.t = Ticket{blocks: a.blocks[:n:n], tail: w.Tail, seal: w.Seal, lent: a}
	// The strings are views of data, which the arena holds until release.
	dec := wire.NewCaveatDecoderView(data, unsafe.String(unsafe.SliceData(data), len(data)), a.cavs, a.entries)
	for i, raw := range parts.Blocks {
		off := parts.Offsets[i]
		b, cavs, err := wire.ReadBlock(data, off, off+len(raw), &dec)
		if err != nil {
			return blockError(i, err)
		}
		if err := a.t.setBlock(i, b, cavs, raw, w.Holder); err != nil {
			return err
		}
	}
	if err := a.t.checkSigs(parts.Sigs, w.Holder); err != nil {
		return err
	}
	if len(parts.Sigs) > 0 {
		a.t.sigs = parts.Sigs // in a.room
	}
	a.keepRoom()
	return nil
}

// keepRoom grows the room for caveats and list entries to what this
// ticket needed, so that the next one like it takes all from the arena.
func (a *arena) keepRoom() {
	cavs, entries := 0, 0
	for i := range a.t.blocks {
		cavs += len(a.t.blocks[i].Caveats)
		for _, c := range a.t.blocks[i].Caveats {
			entries += len(c.List)
		}
	}
	if cavs > cap(a.cavs) {
		a.cavs = make([]caveat.Caveat, cavs)
	}
	if entries > cap(a.entries) {
		a.entries = make([]string, entries)
	}
}

// idRoom returns room for the ids of the ticket's blocks: the arena's for
// a lent ticket, else new.
func (t *Ticket) idRoom() []BlockID {
	if a := t.lent; a != nil {
		a.ids = slices.Grow(a.ids[:0], len(t.blocks))[:len(t.blocks)]
		return a.ids
	}
	return make([]BlockID, len(t.blocks))
}
