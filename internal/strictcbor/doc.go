// Package strictcbor holds the one set of CBOR rules every decoder of this
// module applies: RFC 8949 §4.2.1 core deterministic encoding plus the size
// limits of limits.go. Two forms apply them: Check (and Unmarshal, which
// calls it) walks a whole item before any value is read; Reader checks
// each item as it reads it, for the hand-written decoders of the
// verifier's hot path, which then keep the two rules Reader leaves them
// (map keys in order, nesting) by their fixed shapes. Fuzz targets hold
// Reader to Check and those decoders to fxamacker.
//
// fxamacker/cbor encodes deterministically but does not reject every
// non-canonical input on decode (non-shortest heads, unsorted map keys), so
// Check walks the bytes once, allocation-free, and refuses anything that
// would not re-encode to itself: indefinite lengths, non-shortest integers
// and lengths, unsorted or duplicate map keys, tags, floats, simple values
// other than false and true, map keys other than integers and text
// strings, invalid UTF-8, trailing bytes and anything
// over the limits. Only then does Unmarshal hand the bytes to fxamacker,
// whose own strict options (duplicate keys, unknown fields, no tags, no
// indefinite lengths) remain on as a second line.
package strictcbor

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
		panic("strictcbor: encoder options: " + err.Error())
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
		panic("strictcbor: decoder options: " + err.Error())
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
