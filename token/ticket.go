package token

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
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
	lent   *arena   // the pooled memory of a lent ticket (lend.Parse), or nil
}

// Decode parses the CBOR form of a ticket strictly: every accepted input
// re-encodes to exactly itself. Errors wrap [ErrMalformed]. The ticket keeps
// a copy of data, never data itself.
//
// Decode reads the canonical bytes by hand ([wire.ReadTicket], [wire.ReadBlock])
// because the verifier's hot path starts here; fxamacker/cbor stays the
// reference decoder, and FuzzDecodeMatchesReference holds the two to one
// answer.
func Decode(data []byte) (*Ticket, error) {
	if len(data) > MaxTicketBytes {
		return nil, malformed(-1, "larger than the size limit")
	}
	return decodeOwned(bytes.Clone(data))
}

// Encode returns the ticket's CBOR form.
func (t *Ticket) Encode() []byte {
	w := wire.Ticket{Version: FormatVersion, Blocks: make([][]byte, len(t.blocks)),
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
	b, err := wire.Marshal(w)
	if err != nil { // only byte strings and small integers: cannot fail
		panic("token: internal error: encoding ticket: " + err.Error())
	}
	return b
}

var b64 = base64.RawURLEncoding.Strict()

// Parse parses the text form: Prefix followed by base64url without padding
// (RFC 4648 §5) of the CBOR form. It is as strict as [Decode]: one ticket has
// exactly one text, so no whitespace, padding or stray bits are accepted.
func Parse(text string) (*Ticket, error) {
	body, err := textBody(text)
	if err != nil {
		return nil, err
	}
	data, err := b64.DecodeString(body)
	if err != nil {
		return nil, textError(body)
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

// textBody checks the text form up to its base64 and returns that.
func textBody(text string) (string, error) {
	if len(text) > MaxTextBytes {
		return "", malformed(-1, "text longer than the size limit")
	}
	body, ok := strings.CutPrefix(text, Prefix)
	if !ok {
		return "", malformed(-1, "text does not start with "+Prefix)
	}
	// The decoder refuses every byte outside the alphabet except CR and LF,
	// which RFC 4648 §3.3 lets it skip: one ticket has one text, so they
	// are refused here.
	if strings.IndexByte(body, '\n') >= 0 || strings.IndexByte(body, '\r') >= 0 {
		return "", malformed(-1, "text has a character outside base64url")
	}
	return body, nil
}

// textError is the error of a body the base64url decoder refused.
func textError(body string) error {
	if strings.ContainsFunc(body, notBase64URL) {
		return malformed(-1, "text has a character outside base64url")
	}
	return malformed(-1, "text is not canonical base64url")
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

// UnverifiedAlg returns the chaining algorithm block 0 names (0 for a zero
// [Ticket]).
func (t *Ticket) UnverifiedAlg() key.Alg {
	if len(t.blocks) == 0 {
		return 0
	}
	return t.blocks[0].Alg
}

// UnverifiedKeyID returns the key id block 0 names, for finding the key
// ("" for a zero [Ticket]).
func (t *Ticket) UnverifiedKeyID() string {
	if len(t.blocks) == 0 {
		return ""
	}
	return t.blocks[0].KeyID
}

// UnverifiedBlocks returns the decoded blocks. Nothing in them is
// trustworthy until VerifyChain succeeds; inspect them, never act on them.
// The caller must not modify them.
func (t *Ticket) UnverifiedBlocks() []Block { return t.blocks }
