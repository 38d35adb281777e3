package wire

import (
	"bytes"
	"fmt"
	"math"

	"github.com/tickettool/tickettool/caveat"
)

// The caveat value codec: the CBOR value of each kind of package caveat,
// as it appears as the value of the kind's entry in a block's caveat map
// (Block.Caveats; spec/FORMAT.md §5):
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

// EncodeCaveat returns the deterministic CBOR encoding of c's value. It
// refuses (caveat.ErrSyntax) a caveat that is not valid (caveat.Caveat.Valid),
// so it never writes a value DecodeCaveat would refuse. For a kind package
// caveat does not know it returns a copy of Raw, which must be one
// canonical CBOR item within TicketLimits.
func EncodeCaveat(c caveat.Caveat) ([]byte, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	var v any
	switch c.Kind {
	case caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Audience:
		v = c.List
	case caveat.Calls, caveat.Depth:
		v = c.N
	case caveat.Until, caveat.NotBefore:
		v = uint64(c.Time)
	case caveat.Cost, caveat.Total:
		v = amountValue{Micros: c.Amount.Micros, Currency: c.Amount.Currency}
	case caveat.Intent:
		v = c.Text
	case caveat.Holder:
		v = c.Bytes
	default:
		if err := Check(c.Raw, TicketLimits()); err != nil {
			return nil, syntaxErr(c.Kind, "%v: value is not one canonical CBOR item: %v", c.Kind, err)
		}
		return bytes.Clone(c.Raw), nil
	}
	b, err := Marshal(v)
	if err != nil {
		return nil, syntaxErr(c.Kind, "cannot encode: %v", err)
	}
	return b, nil
}

// DecodeCaveat decodes the CBOR value raw of a caveat of kind k, strictly:
// raw must be one canonical item (within TicketLimits) of the kind's
// shape, and every rule of the kind must hold (sorted unique lists, entry
// syntax, lowercase hosts, trailing "/" on paths, ranges). Together these
// make the encoding of a valid caveat unique, so every accepted raw
// re-encodes to itself byte for byte (a fuzz test holds this, and holds
// this decoder to the fxamacker/cbor reference). Every error wraps
// caveat.ErrSyntax (a *caveat.Error).
//
// A kind that is not known decodes into Caveat{Kind: k, Raw: a copy of
// raw} with a nil error, once raw is checked to be one canonical item, so
// the ticket that carries it re-encodes identically; caveat.Caveat.Evaluate
// refuses it. The result never aliases raw.
func DecodeCaveat(k caveat.Kind, raw []byte) (caveat.Caveat, error) {
	if len(raw) > TicketLimits().MaxItemSize {
		return caveat.Caveat{}, syntaxErr(k, "value larger than %d bytes", TicketLimits().MaxItemSize)
	}
	src := source{b: raw}
	r := NewReader(raw, TicketLimits())
	var c caveat.Caveat
	if err := decodeInto(&c, k, &r, &src, nil, 1); err != nil {
		return caveat.Caveat{}, err
	}
	if !r.Done() {
		return caveat.Caveat{}, syntaxErr(k, "trailing bytes after the value, at byte %d", r.Offset())
	}
	return c, nil
}

// decodeInto reads one value of kind k from r, which reads src.b, at the
// given depth (1 for a top-level item; wire.Reader.Raw), checks it
// as DecodeCaveat does and sets *c, which must be the zero Caveat, to it.
// Its strings are substrings of src's one copy; its list comes from
// entries when that is not nil. On error *c is left partly set.
func decodeInto(c *caveat.Caveat, k caveat.Kind, r *Reader, src *source, entries *[]string, depth int) error {
	start := r.Offset()
	c.Kind = k
	switch k {
	case caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Audience:
		if n := r.Array(); n > 0 {
			c.List = takeRoom(entries, n, listChunk)
			for i := 0; i < n && !r.Failed(); i++ {
				e := r.Text()
				end := r.Offset()
				c.List[i] = src.sub(end-len(e), end)
			}
		}
	case caveat.Calls, caveat.Depth:
		c.N = r.Uint()
	case caveat.Until, caveat.NotBefore:
		c.Time = int64(min(r.Uint(), math.MaxInt64)) // Valid bounds it
	case caveat.Cost, caveat.Total:
		if n := r.Array(); n != 2 && !r.Failed() {
			return syntaxErr(k, "amount must be [micros, currency]")
		}
		c.Amount.Micros = r.Uint()
		e := r.Text()
		end := r.Offset()
		c.Amount.Currency = src.sub(end-len(e), end)
	case caveat.Intent:
		e := r.Text()
		end := r.Offset()
		c.Text = src.sub(end-len(e), end)
	case caveat.Holder:
		c.Bytes = bytes.Clone(r.Bytes())
	default:
		c.Raw = bytes.Clone(r.Raw(depth))
	}
	switch {
	case r.WrongType():
		return syntaxErr(k, "value is not of the kind's CBOR type")
	case r.Failed():
		return syntaxErr(k, "%s", r.failure("value", start))
	case !k.Known():
		return nil
	}
	return c.Valid()
}

// syntaxErr returns a *caveat.Error wrapping caveat.ErrSyntax: a value this
// package decodes or encodes for package caveat breaks a rule of its kind.
func syntaxErr(k caveat.Kind, format string, args ...any) error {
	return &caveat.Error{Kind: k, Reason: fmt.Sprintf(format, args...), Err: caveat.ErrSyntax}
}
