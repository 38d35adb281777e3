package caveat

import (
	"bytes"

	"github.com/tickettool/tickettool/internal/wire"
)

// The CBOR value of each kind, as it appears as the value of the kind's
// entry in a block's caveat map (the token package writes the map):
//
//	tools, ops, paths, hosts, aud   [+ tstr]          sorted bytewise, unique
//	calls, depth                    uint
//	until, nbf                      uint              unix seconds
//	cost, total                     [uint, tstr]      [micros, currency]
//	intent                          tstr
//	holder                          bstr .size 32
//
// All in RFC 8949 §4.2.1 core deterministic encoding.

// amountValue is the CBOR form of an Amount.
type amountValue struct {
	_        struct{} `cbor:",toarray"`
	Micros   uint64
	Currency string
}

// MarshalValue returns the deterministic CBOR encoding of c's value. It
// refuses (ErrSyntax) a caveat that is not valid, so it never writes a
// value DecodeValue would refuse. For an unknown kind it returns a copy of
// Raw, which must be one canonical CBOR item.
func (c Caveat) MarshalValue() ([]byte, error) {
	if why := c.problem(); why != "" {
		return nil, syntaxErr(c.Kind, "%s", why)
	}
	return c.encode()
}

// encode encodes a caveat already known to be valid.
func (c Caveat) encode() ([]byte, error) {
	var v any
	switch c.Kind {
	case Tools, Ops, Paths, Hosts, Audience:
		v = c.List
	case Calls, Depth:
		v = c.N
	case Until, NotBefore:
		v = uint64(c.Time)
	case Cost, Total:
		v = amountValue{Micros: c.Amount.Micros, Currency: c.Amount.Currency}
	case Intent:
		v = c.Text
	case Holder:
		v = c.Bytes
	default:
		return bytes.Clone(c.Raw), nil
	}
	b, err := wire.Marshal(v)
	if err != nil {
		return nil, syntaxErr(c.Kind, "cannot encode: %v", err)
	}
	return b, nil
}

// DecodeValue decodes the CBOR value raw of a caveat of kind k, strictly:
// raw must be one canonical item (strictcbor, TicketLimits()) of the kind's
// shape, and every rule of the kind must hold (sorted unique lists, entry
// syntax, lowercase hosts, trailing "/" on paths, ranges). Together these
// make the encoding of a valid caveat unique, so every accepted raw
// re-encodes to itself byte for byte (a fuzz test holds this, and holds
// this decoder to the fxamacker/cbor reference). Every error wraps
// ErrSyntax.
//
// A kind that is not known decodes into Caveat{Kind: k, Raw: a copy of
// raw} with a nil error, once raw is checked to be one canonical item, so
// the ticket that carries it re-encodes identically; Check refuses it.
// The result never aliases raw.
func DecodeValue(k Kind, raw []byte) (Caveat, error) {
	if len(raw) > wire.TicketLimits().MaxItemSize {
		return Caveat{}, syntaxErr(k, "value: cbor: item larger than %d bytes", wire.TicketLimits().MaxItemSize)
	}
	src := source{b: raw}
	r := wire.NewReader(raw, wire.TicketLimits())
	var c Caveat
	if err := decodeInto(&c, k, &r, &src, nil, 1); err != nil {
		return Caveat{}, err
	}
	if !r.Done() {
		return Caveat{}, syntaxErr(k, "value: cbor: offset %d: trailing bytes after the item", r.Offset())
	}
	return c, nil
}

// decodeInto reads one value of kind k from r, which reads src.b, at the
// given depth (1 for a top-level item; wire.Reader.Raw), checks it
// as DecodeValue does and sets *c, which must be the zero Caveat, to it.
// Its strings are substrings of src's one copy; its list comes from
// entries when that is not nil. On error *c is left partly set.
func decodeInto(c *Caveat, k Kind, r *wire.Reader, src *source, entries *[]string, depth int) error {
	start := r.Offset()
	c.Kind = k
	switch k {
	case Tools, Ops, Paths, Hosts, Audience:
		if n := r.Array(); n > 0 {
			c.List = takeRoom(entries, n, listChunk)
			for i := 0; i < n && !r.Failed(); i++ {
				e := r.Text()
				end := r.Offset()
				c.List[i] = src.sub(end-len(e), end)
			}
		}
	case Calls, Depth:
		c.N = r.Uint()
	case Until, NotBefore:
		t := r.Uint()
		if t > uint64(maxTime) {
			return syntaxErr(k, "time is after 9999-12-31T23:59:59Z")
		}
		c.Time = int64(t)
	case Cost, Total:
		if n := r.Array(); n != 2 && !r.Failed() {
			return syntaxErr(k, "value: amount must be [micros, currency]")
		}
		c.Amount.Micros = r.Uint()
		e := r.Text()
		end := r.Offset()
		c.Amount.Currency = src.sub(end-len(e), end)
	case Intent:
		e := r.Text()
		end := r.Offset()
		c.Text = src.sub(end-len(e), end)
	case Holder:
		c.Bytes = bytes.Clone(r.Bytes())
	default:
		c.Raw = bytes.Clone(r.Raw(depth))
	}
	switch {
	case r.WrongType():
		return syntaxErr(k, "value: not of the kind's CBOR type")
	case r.Failed():
		return syntaxErr(k, "value: %v", relative(r.Err(), start))
	case !k.Known():
		return nil
	}
	if why := c.problem(); why != "" {
		return syntaxErr(k, "%s", why)
	}
	return nil
}

// relative returns err, a reader's failure, with its offset counted from
// start (the first byte of the item the message names) rather than from
// the start of the reader's buffer.
func relative(err error, start int) error {
	if e, ok := err.(*wire.Error); ok && e.Offset >= start {
		return &wire.Error{Offset: e.Offset - start, Reason: e.Reason}
	}
	return err
}
