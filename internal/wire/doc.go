// Package wire is the module's one wire layer: the bytes of its formats
// and the one set of CBOR rules every decoder applies, RFC 8949 §4.2.1
// core deterministic encoding plus the size limits of limits.go.
//
// It holds:
//
//   - the canonical CBOR reader, Reader, and the check of a whole item,
//     Check and ItemLen, which read with the same Reader (Reader.Raw);
//   - the wire structs of a ticket (Ticket, spec/FORMAT.md §2), a block
//     (Block, §3) and a receipt record (Record, chain/FORMAT.md §1), which
//     Marshal writes, and their one-pass readers ReadTicket, ReadBlock and
//     ReadRecord, built on Reader: tickets and records are read the same
//     way, each kind of item within its Limits (TicketLimits,
//     RecordLimits);
//   - the wire structs of a discharge, an approver's signed approval
//     (Discharge and DischargeBlock, spec/FORMAT.md §4.6 "Approvals and
//     discharges"), and their one-pass readers ReadDischarge and
//     ReadDischargeBlock, read like a ticket within TicketLimits and
//     MaxDischargeBytes;
//   - the caveat value codec (spec/FORMAT.md §5): EncodeCaveat,
//     DecodeCaveat and CaveatDecoder, which reads every caveat map of a
//     ticket in one pass. Package caveat has no CBOR in its API; its
//     Caveat.Valid is the rule the codec applies.
//
// The readers check what is in the bytes (canonical form, known fields,
// types, fields present with an empty value); what the fields mean is
// their callers' (token, chain). They refuse anything that would not
// re-encode to itself: indefinite lengths, non-shortest integers and
// lengths, unsorted or duplicate map keys, tags, floats, simple values
// other than false and true, map keys other than integers and text
// strings, invalid UTF-8, trailing bytes and anything over the limits.
// Errors of the readers are *Error (no package prefix: the caller adds
// its own, once); those of the caveat codec are *caveat.Error.
//
// fxamacker/cbor encodes (Marshal), deterministically, and stays the
// reference decoder of the tests: Unmarshal checks with Check first, then
// decodes with fxamacker's own strict options on as a second line. Fuzz
// targets hold the typed reads to Check, Check to fxamacker's decoder, and
// the readers and the caveat codec to fxamacker-based references.
package wire

import (
	"errors"
	"strings"

	"github.com/fxamacker/cbor/v2"
)

// encoder is the deterministic encoder (RFC 8949 §4.2.1) for every value
// this module writes.
var encoder cbor.EncMode

// decoder refuses what fxamacker can detect; Check refuses the rest.
var decoder cbor.DecMode

func init() {
	var err error
	eo := cbor.CoreDetEncOptions()
	eo.IndefLength = cbor.IndefLengthForbidden
	eo.TagsMd = cbor.TagsForbidden
	if encoder, err = eo.EncMode(); err != nil {
		panic("wire: encoder options: " + err.Error())
	}
	do := cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		MaxNestedLevels:   MaxNesting,
		MaxArrayElements:  MaxListItems,
		MaxMapPairs:       MaxListItems,
		UTF8:              cbor.UTF8RejectInvalid,
		NaN:               cbor.NaNDecodeForbidden,
		Inf:               cbor.InfDecodeForbidden,
	}
	if decoder, err = do.DecMode(); err != nil {
		panic("wire: decoder options: " + err.Error())
	}
}

// Marshal encodes v deterministically.
func Marshal(v any) ([]byte, error) { return encoder.Marshal(v) }

// Unmarshal checks that data is exactly one canonical item within lim and
// then decodes it into v, refusing unknown struct fields. No decoder of
// the module uses it: it is the tests' reference decoder, which the
// readers above are held to.
func Unmarshal(data []byte, v any, lim Limits) error {
	if err := Check(data, lim); err != nil {
		return err
	}
	if err := decoder.Unmarshal(data, v); err != nil {
		var te *cbor.UnmarshalTypeError
		if errors.As(err, &te) { // its message names Go types
			return &Error{Offset: -1, Reason: "a CBOR " + te.CBORType + " where the format has another type"}
		}
		return &Error{Offset: -1, Reason: strings.TrimPrefix(err.Error(), "cbor: ")}
	}
	return nil
}
