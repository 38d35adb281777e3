// Package wire holds the bytes of the module's formats and the one set of
// CBOR rules every decoder applies: RFC 8949 §4.2.1 core deterministic
// encoding plus the size limits of limits.go.
//
// One reader applies the rules. Reader checks each item as it reads it,
// for the hand-written decoders of tickets, blocks, caveat values and
// receipt records, which keep the rules Reader leaves them (map keys in
// order, nesting) by their fixed shapes; Check and ItemLen read one whole
// item of any shape with the same Reader (Reader.Raw) before anything
// else reads it. They refuse anything that would not re-encode to itself:
// indefinite lengths, non-shortest integers and lengths, unsorted or
// duplicate map keys, tags, floats, simple values other than false and
// true, map keys other than integers and text strings, invalid UTF-8,
// trailing bytes and anything over the limits. Fuzz targets hold the typed
// reads to Check, Check to fxamacker/cbor's decoder, and the decoders built
// on Reader to fxamacker-based references (in tests).
//
// fxamacker/cbor encodes (Marshal): deterministically, and it stays the
// reference decoder of the tests (Unmarshal checks with Check first, then
// decodes with fxamacker's own strict options on as a second line).
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
// then decodes it into v, refusing unknown struct fields.
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
