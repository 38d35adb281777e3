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
//	holder, args                    bstr .size 32
//	approval                        {1: tstr, 2: bstr .size 32, 3: bstr .size 16, ? 4: tstr}
//	                                key id, key, nonce, location (absent when empty)
//	                                or {3: nonce, ? 4: location, 5: uint, 6: [2*8 tstr], 7: [2*8 bstr .size 32]}
//	                                threshold, key ids, keys (a threshold approval)
//
// All in RFC 8949 §4.2.1 core deterministic encoding.

// amountValue is the CBOR form of an Amount.
type amountValue struct {
	_        struct{} `cbor:",toarray"`
	Micros   uint64
	Currency string
}

// approverValue is the CBOR form of an Approver (the reference for tests;
// EncodeCaveat and decodeInto write and read it by hand).
type approverValue struct {
	KeyID    string `cbor:"1,keyasint"`
	Key      []byte `cbor:"2,keyasint"`
	Nonce    []byte `cbor:"3,keyasint"`
	Location string `cbor:"4,keyasint,omitempty"`
}

// thresholdApproval is the CBOR form of a threshold approval (the
// reference for tests; decodeInto reads it by hand).
type thresholdApproval struct {
	Nonce    []byte   `cbor:"3,keyasint"`
	Location string   `cbor:"4,keyasint,omitempty"`
	Need     int      `cbor:"5,keyasint"`
	KeyIDs   []string `cbor:"6,keyasint"`
	Keys     [][]byte `cbor:"7,keyasint"`
}

func thresholdValue(a *caveat.Approver) thresholdApproval {
	v := thresholdApproval{Nonce: a.Nonce[:], Location: a.Location, Need: a.Need}
	for _, m := range a.Members {
		v.KeyIDs = append(v.KeyIDs, m.KeyID)
		v.Keys = append(v.Keys, m.Key[:])
	}
	return v
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
	case caveat.Holder, caveat.Args:
		v = c.Bytes
	case caveat.Approval:
		a := c.Approver
		if a == nil {
			return nil, syntaxErr(c.Kind, "%v: names no approver", c.Kind)
		}
		if a.Members != nil {
			v = thresholdValue(a)
		} else {
			v = approverValue{KeyID: a.KeyID, Key: a.Key[:], Nonce: a.Nonce[:], Location: a.Location}
		}
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
	case caveat.Holder, caveat.Args:
		c.Bytes = bytes.Clone(r.Bytes())
	case caveat.Approval:
		c.Approver = new(caveat.Approver)
		if err := readApprover(c.Approver, r, src); err != nil {
			return err
		}
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

// readApprover reads an approval's value: a map with the keys 1 (key id),
// 2 (key, 32 bytes), 3 (nonce, 16 bytes) and, only when the location is
// not empty, 4 (location), in that order; or, for a threshold approval,
// 3, 4 (as above), 5 (threshold), 6 (key ids) and 7 (keys), the two
// arrays of one length, 2 to caveat.MaxApprovers. A missing or extra key,
// a wrong size or an empty location at 4 is malformed; Valid checks the
// rest.
func readApprover(a *caveat.Approver, r *Reader, src *source) error {
	const shape = "value must be a map of the keys 1 (key id), 2 (key), 3 (nonce) and, when not empty, 4 (location), in that order, " +
		"or 3, 4, 5 (threshold), 6 (key ids) and 7 (keys)"
	n := r.Map()
	first := r.Uint()
	if r.Failed() {
		return nil
	}
	var keys []uint64
	switch {
	case first == 1 && (n == 3 || n == 4):
		keys = []uint64{1, 2, 3, 4}[:n]
	case first == 3 && n == 4:
		keys = []uint64{3, 5, 6, 7}
	case first == 3 && n == 5:
		keys = []uint64{3, 4, 5, 6, 7}
	default:
		return syntaxErr(caveat.Approval, shape)
	}
	for i, key := range keys {
		if r.Failed() {
			break
		}
		if i > 0 {
			if k := r.Uint(); k != key && !r.Failed() {
				return syntaxErr(caveat.Approval, shape)
			}
		}
		if err := readApproverField(a, key, r, src); err != nil {
			return err
		}
	}
	return nil
}

// readApproverField reads the value of key of an approval's map.
func readApproverField(a *caveat.Approver, key uint64, r *Reader, src *source) error {
	switch key {
	case 1, 4:
		e := r.Text()
		end := r.Offset()
		if key == 1 {
			a.KeyID = src.sub(end-len(e), end)
		} else if a.Location = src.sub(end-len(e), end); a.Location == "" && !r.Failed() {
			return syntaxErr(caveat.Approval, "an empty location must be left out, not written as key 4")
		}
	case 2:
		b := r.Bytes()
		if len(b) != len(a.Key) && !r.Failed() {
			return syntaxErr(caveat.Approval, "key must be 32 bytes")
		}
		copy(a.Key[:], b)
	case 3:
		b := r.Bytes()
		if len(b) != len(a.Nonce) && !r.Failed() {
			return syntaxErr(caveat.Approval, "nonce must be 16 bytes")
		}
		copy(a.Nonce[:], b)
	case 5:
		need := r.Uint()
		if need > caveat.MaxApprovers && !r.Failed() {
			return syntaxErr(caveat.Approval, "threshold over %d", caveat.MaxApprovers)
		}
		a.Need = int(need)
	case 6:
		n := r.Array()
		if (n < 2 || n > caveat.MaxApprovers) && !r.Failed() {
			return syntaxErr(caveat.Approval, "a threshold approval names 2 to %d approvers", caveat.MaxApprovers)
		}
		a.Members = make([]caveat.Member, max(n, 0))
		for i := 0; i < n && !r.Failed(); i++ {
			e := r.Text()
			end := r.Offset()
			a.Members[i].KeyID = src.sub(end-len(e), end)
		}
	case 7:
		if n := r.Array(); n != len(a.Members) && !r.Failed() {
			return syntaxErr(caveat.Approval, "as many keys (7) as key ids (6)")
		}
		for i := 0; i < len(a.Members) && !r.Failed(); i++ {
			b := r.Bytes()
			if len(b) != 32 && !r.Failed() {
				return syntaxErr(caveat.Approval, "key must be 32 bytes")
			}
			copy(a.Members[i].Key[:], b)
		}
	}
	return nil
}

// syntaxErr returns a *caveat.Error wrapping caveat.ErrSyntax: a value this
// package decodes or encodes for package caveat breaks a rule of its kind.
func syntaxErr(k caveat.Kind, format string, args ...any) error {
	return &caveat.Error{Kind: k, Reason: fmt.Sprintf(format, args...), Err: caveat.ErrSyntax}
}
