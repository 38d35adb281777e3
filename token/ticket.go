package token

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/strictcbor"
)

// FormatVersion is the version of the ticket format this package writes
// and reads.
const FormatVersion = 1

// Ticket is a parsed ticket. Its contents are unverified until a verifier
// checks its chain; accessors that return them say so in their names. A
// Ticket is immutable: Attenuate and Seal return new tickets.
type Ticket struct {
	blocks []Block
	sigs   [][]byte // Ed25519 mode: one signature per block
	tail   []byte   // HMAC: the last tag; Ed25519: the seed of the last next key; nil when sealed
	seal   []byte   // the seal tag or signature; nil when not sealed
	text   string   // the text form, when known
}

// wireTicket is the CBOR form of a ticket (spec/FORMAT.md §2).
type wireTicket struct {
	Version uint64            `cbor:"1,keyasint"`
	Blocks  [][]byte          `cbor:"2,keyasint"`
	Sigs    [][]byte          `cbor:"3,keyasint,omitempty"`
	Tail    []byte            `cbor:"4,keyasint,omitempty"`
	Seal    []byte            `cbor:"5,keyasint,omitempty"`
	Holder  map[uint64][]byte `cbor:"6,keyasint,omitempty"`
}

// Decode parses the CBOR form of a ticket strictly: every accepted input
// re-encodes to exactly itself. Errors wrap ErrMalformed. The ticket keeps
// a copy of data, never data itself.
//
// Decode reads the canonical bytes by hand (strictcbor.Reader) because the
// verifier's hot path starts here; fxamacker/cbor stays the reference
// decoder, and FuzzDecodeMatchesReference holds the two to one answer.
func Decode(data []byte) (*Ticket, error) {
	if len(data) > MaxTicketBytes {
		return nil, malformed(-1, "larger than the size limit")
	}
	return decodeOwned(bytes.Clone(data))
}

// decodeOwned is Decode for bytes nobody else holds.
func decodeOwned(data []byte) (*Ticket, error) {
	if err := strictcbor.Check(data, strictcbor.TicketLimits); err != nil {
		return nil, malformed(-1, err.Error())
	}
	f, err := readTicket(data)
	if err != nil {
		return nil, err
	}
	return ticketFromFields(f, readBlockChecked)
}

// readTicket reads the envelope's fields (spec/FORMAT.md §2) from checked
// bytes, refusing unknown fields, wrong types and empty values.
func readTicket(data []byte) (wireTicket, error) {
	var w wireTicket
	seen := 0
	empty := false
	r := strictcbor.NewReader(data)
	for n := r.Map(); n > 0 && !r.Failed(); n-- {
		k := r.Uint()
		switch k {
		case 1:
			w.Version = r.Uint()
		case 2:
			w.Blocks = readByteStrings(r)
			empty = empty || len(w.Blocks) == 0
		case 3:
			w.Sigs = readByteStrings(r)
			empty = empty || len(w.Sigs) == 0
		case 4:
			w.Tail = r.Bytes()
			empty = empty || len(w.Tail) == 0
		case 5:
			w.Seal = r.Bytes()
			empty = empty || len(w.Seal) == 0
		case 6:
			m := r.Map()
			w.Holder = make(map[uint64][]byte, m)
			for ; m > 0 && !r.Failed(); m-- {
				w.Holder[r.Uint()] = r.Bytes()
			}
			empty = empty || len(w.Holder) == 0
		default:
			return w, malformed(-1, fmt.Sprintf("unknown field %d", k))
		}
		seen |= 1 << k
	}
	switch {
	case !r.Done():
		return w, malformed(-1, "a field or key has the wrong CBOR type")
	case seen&(1<<1|1<<2) != 1<<1|1<<2:
		return w, malformed(-1, "version or blocks missing")
	case empty:
		return w, malformed(-1, "field present with an empty value")
	}
	return w, nil
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

// ticketFromFields checks the envelope's fields and decodes every block,
// reading each block's fields with read.
func ticketFromFields(w wireTicket, read func(raw []byte, i int) (blockFields, error)) (*Ticket, error) {
	switch {
	case w.Version != FormatVersion:
		return nil, malformed(-1, "unsupported format version")
	case len(w.Blocks) == 0:
		return nil, malformed(-1, "no blocks")
	case len(w.Blocks) > MaxBlocks:
		return nil, malformed(-1, "more blocks than the limit")
	case (len(w.Tail) > 0) == (len(w.Seal) > 0):
		return nil, malformed(-1, "needs exactly one of tail and seal")
	}
	// Read every block's fields first, so that all caveats of the ticket
	// share one allocation. Most tickets have a few blocks: their fields
	// stay on the stack.
	var small [8]blockFields
	fields := small[:0]
	if len(w.Blocks) > len(small) {
		fields = make([]blockFields, 0, len(w.Blocks))
	}
	fields = fields[:len(w.Blocks)]
	total := 0
	for i, raw := range w.Blocks {
		f, err := read(raw, i)
		if err != nil {
			return nil, err
		}
		if f.ncav > MaxCaveatsPerBlock {
			return nil, malformed(i, "too many caveats")
		}
		fields[i], total = f, total+f.ncav
	}
	t, cavs := newTicket(len(w.Blocks), total)
	t.tail, t.seal = w.Tail, w.Seal
	var mode Mode
	for i, raw := range w.Blocks {
		b, err := blockFromFields(fields[i], raw, i, mode, cavs[:fields[i].ncav])
		if err != nil {
			return nil, err
		}
		cavs = cavs[fields[i].ncav:]
		if i == 0 {
			mode = b.Mode
		}
		if sig, ok := w.Holder[uint64(i)]; ok != (len(b.RebindJWK) > 0) {
			return nil, malformed(i, "a rebinding block needs exactly one holder signature, and only it")
		} else if ok && (len(sig) == 0 || len(sig) > MaxRebindSigBytes) {
			return nil, malformed(i, "holder signature has a bad length")
		} else {
			b.RebindSig = sig
		}
		t.blocks[i] = b
	}
	for k := range w.Holder {
		if k >= uint64(len(w.Blocks)) {
			return nil, malformed(-1, "holder signature for a block that does not exist")
		}
	}
	if mode == ModeHMAC {
		switch {
		case len(w.Sigs) != 0:
			return nil, malformed(-1, "hmac ticket carries signatures")
		case len(w.Tail) != 0 && len(w.Tail) != tagBytes, len(w.Seal) != 0 && len(w.Seal) != tagBytes:
			return nil, malformed(-1, "hmac tag must be 32 bytes")
		}
		return t, nil
	}
	switch {
	case len(w.Sigs) != len(w.Blocks):
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

// smallTicket holds a typical ticket, its blocks and its caveats in one
// allocation.
type smallTicket struct {
	t      Ticket
	blocks [4]Block
	cavs   [8]caveat.Caveat
}

// newTicket returns a ticket with room for n blocks and a slice for its c
// caveats.
func newTicket(n, c int) (*Ticket, []caveat.Caveat) {
	if n <= len(smallTicket{}.blocks) && c <= len(smallTicket{}.cavs) {
		s := new(smallTicket)
		s.t.blocks = s.blocks[:n:n]
		return &s.t, s.cavs[:c:c]
	}
	return &Ticket{blocks: make([]Block, n)}, make([]caveat.Caveat, c)
}

// Encode returns the ticket's CBOR form.
func (t *Ticket) Encode() []byte {
	w := wireTicket{Version: FormatVersion, Blocks: make([][]byte, len(t.blocks)),
		Sigs: t.sigs, Tail: t.tail, Seal: t.seal}
	for i := range t.blocks {
		w.Blocks[i] = t.blocks[i].raw
		if t.blocks[i].RebindSig != nil {
			if w.Holder == nil {
				w.Holder = map[uint64][]byte{}
			}
			w.Holder[uint64(i)] = t.blocks[i].RebindSig
		}
	}
	b, err := strictcbor.Marshal(w)
	if err != nil { // only byte strings and small integers: cannot fail
		panic("token: internal error: encoding ticket: " + err.Error())
	}
	return b
}

var b64 = base64.RawURLEncoding.Strict()

// Parse parses the text form: Prefix followed by base64url without padding
// (RFC 4648 §5) of the CBOR form. It is as strict as Decode: one ticket has
// exactly one text, so no whitespace, padding or stray bits are accepted.
func Parse(text string) (*Ticket, error) {
	if len(text) > MaxTextBytes {
		return nil, malformed(-1, "text longer than the size limit")
	}
	body, ok := strings.CutPrefix(text, Prefix)
	if !ok {
		return nil, malformed(-1, "text does not start with "+Prefix)
	}
	// The decoder refuses every byte outside the alphabet except CR and LF,
	// which RFC 4648 §3.3 lets it skip: one ticket has one text, so they
	// are refused here.
	if strings.IndexByte(body, '\n') >= 0 || strings.IndexByte(body, '\r') >= 0 {
		return nil, malformed(-1, "text has a character outside base64url")
	}
	data, err := b64.DecodeString(body)
	if err != nil {
		if strings.ContainsFunc(body, notBase64URL) {
			return nil, malformed(-1, "text has a character outside base64url")
		}
		return nil, malformed(-1, "text is not canonical base64url")
	}
	if len(data) > MaxTicketBytes {
		return nil, malformed(-1, "larger than the size limit")
	}
	t, err := decodeOwned(data)
	if err != nil {
		return nil, err
	}
	t.text = text
	return t, nil
}

func notBase64URL(c rune) bool {
	return !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_')
}

// String returns the text form.
func (t *Ticket) String() string {
	if t.text != "" {
		return t.text
	}
	return Prefix + b64.EncodeToString(t.Encode())
}

// Len returns the number of blocks.
func (t *Ticket) Len() int { return len(t.blocks) }

// Sealed reports whether the ticket is sealed.
func (t *Ticket) Sealed() bool { return t.seal != nil }

// UnverifiedMode returns the mode block 0 names.
func (t *Ticket) UnverifiedMode() Mode { return t.blocks[0].Mode }

// UnverifiedKeyID returns the key id block 0 names, for finding the key.
func (t *Ticket) UnverifiedKeyID() string { return t.blocks[0].KeyID }

// UnverifiedBlocks returns the decoded blocks. Nothing in them is
// trustworthy until VerifyChain succeeds; inspect them, never act on them.
// The caller must not modify them.
func (t *Ticket) UnverifiedBlocks() []Block { return t.blocks }
