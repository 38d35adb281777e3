package wire

import (
	"bytes"
	"strconv"
)

// Record is a receipt record of the receipt log (chain/FORMAT.md §1): a
// CBOR map with integer keys in ascending order. Required fields have no
// omitempty: seq, time, kind, prev and alg are always present. Marshal
// writes it; ReadRecord reads it.
type Record struct {
	Seq      uint64   `cbor:"1,keyasint"`
	Time     uint64   `cbor:"2,keyasint"` // milliseconds since the Unix epoch
	Kind     uint8    `cbor:"3,keyasint"`
	TicketID []byte   `cbor:"4,keyasint,omitempty"`
	FamilyID []byte   `cbor:"5,keyasint,omitempty"`
	Block    uint64   `cbor:"6,keyasint,omitempty"`
	Tool     string   `cbor:"7,keyasint,omitempty"`
	Op       string   `cbor:"8,keyasint,omitempty"`
	Subjects []string `cbor:"9,keyasint,omitempty"`
	Check    string   `cbor:"10,keyasint,omitempty"`
	Caveat   string   `cbor:"11,keyasint,omitempty"`
	Reason   string   `cbor:"12,keyasint,omitempty"`
	Note     string   `cbor:"13,keyasint,omitempty"`
	Prev     []byte   `cbor:"14,keyasint"`
	Alg      uint8    `cbor:"15,keyasint"`
	Sig      []byte   `cbor:"16,keyasint,omitempty"`
	// Approvals (field 17): the discharges that allowed the call.
	Approvals []RecordApproval `cbor:"17,keyasint,omitempty"`
}

// RecordApproval is one entry of a record's field 17: [key id, DID].
type RecordApproval struct {
	_     struct{} `cbor:",toarray"`
	KeyID string
	ID    []byte
}

// ReadRecord reads one record from data, which must be exactly one
// canonical CBOR map within RecordLimits, with the Reader, as ReadTicket
// reads a ticket: keys ascending, no unknown field, every value of its
// field's type. What the fields mean, and whether data is the record's
// one encoding (no field missing or present with an empty value), is the
// caller's to check. The result never aliases data. Errors are *Error.
func ReadRecord(data []byte) (Record, error) {
	var w Record
	lim := RecordLimits()
	if len(data) > lim.MaxItemSize {
		return Record{}, &Error{Offset: 0, Reason: "item larger than " + strconv.Itoa(lim.MaxItemSize) + " bytes"}
	}
	r := NewReader(data, lim)
	var prev uint64
	for n, j := r.Map(), 0; j < n && !r.Failed(); j++ {
		k := r.Uint()
		if r.Failed() {
			break
		}
		if j > 0 && k <= prev {
			return Record{}, refuse("fields are not in canonical order or repeat")
		}
		prev = k
		if !readRecordField(&r, &w, k) {
			return Record{}, refuse("unknown field " + strconv.FormatUint(k, 10))
		}
	}
	switch {
	case r.WrongType():
		return Record{}, refuse("a field or key has the wrong CBOR type")
	case r.Failed():
		return Record{}, r.Err()
	case !r.Done():
		return Record{}, refuse("trailing bytes after the record")
	}
	return w, nil
}

// readRecordField reads the value of field k into w, or reports false for
// a field a record does not have.
func readRecordField(r *Reader, w *Record, k uint64) bool {
	switch k {
	case 1:
		w.Seq = r.Uint()
	case 2:
		w.Time = r.Uint()
	case 3:
		w.Kind = r.uint8()
	case 4:
		w.TicketID = bytes.Clone(r.Bytes())
	case 5:
		w.FamilyID = bytes.Clone(r.Bytes())
	case 6:
		w.Block = r.Uint()
	case 7:
		w.Tool = string(r.Text())
	case 8:
		w.Op = string(r.Text())
	case 9:
		w.Subjects = make([]string, r.Array())
		for i := range w.Subjects {
			w.Subjects[i] = string(r.Text())
		}
	case 10:
		w.Check = string(r.Text())
	case 11:
		w.Caveat = string(r.Text())
	case 12:
		w.Reason = string(r.Text())
	case 13:
		w.Note = string(r.Text())
	case 14:
		w.Prev = bytes.Clone(r.Bytes())
	case 15:
		w.Alg = r.uint8()
	case 16:
		w.Sig = bytes.Clone(r.Bytes())
	case 17:
		w.Approvals = make([]RecordApproval, r.Array())
		for i := range w.Approvals {
			if off := r.off; r.Array() != 2 && !r.Failed() {
				r.fail(off, "an approval is not an array of two items", true)
			}
			w.Approvals[i] = RecordApproval{KeyID: string(r.Text()), ID: bytes.Clone(r.Bytes())}
		}
	default:
		return false
	}
	return true
}

// uint8 reads an unsigned integer of at most 255.
func (r *Reader) uint8() uint8 {
	off := r.off
	v := r.Uint()
	if v > 255 {
		r.fail(off, "integer larger than 255", false)
		return 0
	}
	return uint8(v)
}
