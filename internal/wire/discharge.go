package wire

import (
	"strconv"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
)

// Discharge is a discharge's envelope (spec/FORMAT.md §4.6, "Approvals and
// discharges"): a CBOR map with integer keys, every field required.
// Marshal writes it; ReadDischarge reads it. Its field 2 is a byte string
// where a ticket's is an array, so neither envelope reads as the other.
type Discharge struct {
	Version uint64 `cbor:"1,keyasint"`
	Block   []byte `cbor:"2,keyasint"` // the one block's exact bytes
	Sig     []byte `cbor:"3,keyasint"` // the approver's Ed25519 signature
}

// DischargeBlock is a discharge's one block: a CBOR map with integer
// keys, every field required. Marshal writes it, with the caveat values
// written by EncodeCaveat; ReadDischargeBlock reads it.
type DischargeBlock struct {
	KeyID   string                     `cbor:"2,keyasint"` // the approver's key id
	ID      []byte                     `cbor:"3,keyasint"` // the discharge's random nonce
	Caveats map[uint64]cbor.RawMessage `cbor:"4,keyasint"` // kind → value
	Binding []byte                     `cbor:"7,keyasint"` // the binding of the approval it discharges
}

// ReadDischarge reads a discharge's envelope from data in one pass,
// refusing input over MaxDischargeBytes, non-canonical CBOR, unknown
// fields, wrong types, fields with an empty value and missing fields; what
// the fields mean is the caller's to check. It returns the envelope, whose
// byte strings alias data, and the offset of the block in data. Errors are
// *Error.
func ReadDischarge(data []byte) (d Discharge, blockOff int, err error) {
	if len(data) > MaxDischargeBytes {
		return d, 0, refuse("larger than " + strconv.Itoa(MaxDischargeBytes) + " bytes")
	}
	seen := 0
	var prev uint64
	r := NewReader(data, TicketLimits())
	for n, j := r.Map(), 0; j < n && !r.Failed(); j++ {
		k := r.Uint()
		if r.Failed() {
			break
		}
		if j > 0 && k <= prev {
			return d, 0, refuse("fields are not in canonical order or repeat")
		}
		prev = k
		var empty bool
		switch k {
		case 1:
			d.Version = r.Uint()
			empty = d.Version == 0
		case 2:
			d.Block = r.Bytes()
			blockOff = r.Offset() - len(d.Block)
			empty = len(d.Block) == 0
		case 3:
			d.Sig = r.Bytes()
			empty = len(d.Sig) == 0
		default:
			return d, 0, refuse("unknown field " + strconv.FormatUint(k, 10))
		}
		if empty && !r.Failed() {
			return d, 0, refuse("field present with an empty value")
		}
		seen |= 1 << k
	}
	switch {
	case r.WrongType():
		return d, 0, refuse("a field or key has the wrong CBOR type")
	case r.Failed():
		return d, 0, r.Err()
	case !r.Done():
		return d, 0, refuse("trailing bytes after the discharge")
	case seen != 1<<1|1<<2|1<<3:
		return d, 0, refuse("version, block or signature missing")
	}
	return d, blockOff, nil
}

// ReadDischargeBlock reads the discharge block that lies at data[off:end]
// in one pass, its caveat map with dec, which reads data. It refuses
// non-canonical CBOR, unknown fields, values of the wrong type, fields
// with an empty value and missing fields; what the fields mean is the
// caller's to check. It returns the block without its Caveats map, and the
// caveats decoded (nil when the map is empty); its byte strings alias
// data. An error is a *caveat.Error for a caveat map or value at fault,
// else an *Error.
func ReadDischargeBlock(data []byte, off, end int, dec *CaveatDecoder) (DischargeBlock, []caveat.Caveat, error) {
	var b DischargeBlock
	var cavs []caveat.Caveat
	var prev uint64
	seen := 0
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
		var empty bool
		switch k {
		case 2:
			id := r.Text()
			b.KeyID, empty = string(id), len(id) == 0
		case 3:
			b.ID = r.Bytes()
			empty = len(b.ID) == 0
		case 4:
			if r.Peek() != 5 {
				return b, nil, refuse("caveats are not a map")
			}
			next := 0
			var err error
			if cavs, next, err = dec.DecodeMap(off+r.Offset(), end); err != nil {
				return b, nil, err
			}
			r.Seek(next - off)
		case 7:
			b.Binding = r.Bytes()
			empty = len(b.Binding) == 0
		default:
			return b, nil, refuse("unknown field " + strconv.FormatUint(k, 10))
		}
		if empty && !r.Failed() {
			return b, nil, refuse("field present with an empty value")
		}
		seen |= 1 << k
	}
	switch {
	case r.WrongType():
		return b, nil, refuse("a field or key has the wrong CBOR type")
	case r.Failed():
		return b, nil, r.Err()
	case !r.Done():
		return b, nil, refuse("trailing bytes after the block")
	case seen != 1<<2|1<<3|1<<4|1<<7:
		return b, nil, refuse("key id, nonce, caveats or binding missing")
	}
	return b, cavs, nil
}
