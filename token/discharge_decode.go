package token

import (
	"bytes"
	"errors"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

// DecodeDischarge parses the CBOR form of a discharge strictly: every
// accepted input re-encodes to exactly itself (core deterministic CBOR,
// exactly the fields of spec/FORMAT.md §4.6, at most [MaxDischargeBytes]
// and [MaxDischargeCaveats], a key id by package key's rule, a 16-byte
// nonce, a 32-byte binding, a 64-byte signature, an until caveat and no
// approval caveat). Errors wrap [ErrMalformedDischarge], which is also
// [ErrMalformed]. The discharge keeps a copy of data, never data itself.
// It checks no signature: see [Discharge.Verify].
func DecodeDischarge(data []byte) (*Discharge, error) {
	if len(data) > MaxDischargeBytes {
		return nil, dischargeMalformed("larger than the size limit")
	}
	return decodeDischargeOwned(bytes.Clone(data))
}

// ParseDischarge parses the text form: [DischargePrefix] followed by
// base64url without padding (RFC 4648 §5) of the CBOR form. It is as strict
// as [DecodeDischarge] and as Parse: one discharge has exactly one text,
// so no whitespace, padding or stray bits are accepted.
func ParseDischarge(text string) (*Discharge, error) {
	if len(text) > MaxDischargeTextBytes {
		return nil, dischargeMalformed("text longer than the size limit")
	}
	body, ok := strings.CutPrefix(text, DischargePrefix)
	if !ok {
		return nil, dischargeMalformed("text does not start with " + DischargePrefix)
	}
	// As in Parse: the decoder would skip CR and LF (RFC 4648 §3.3).
	if strings.IndexByte(body, '\n') >= 0 || strings.IndexByte(body, '\r') >= 0 {
		return nil, dischargeMalformed("text has a character outside base64url")
	}
	data, err := b64.DecodeString(body)
	if err != nil {
		if strings.ContainsFunc(body, notBase64URL) {
			return nil, dischargeMalformed("text has a character outside base64url")
		}
		return nil, dischargeMalformed("text is not canonical base64url")
	}
	if len(data) > MaxDischargeBytes {
		return nil, dischargeMalformed("larger than the size limit")
	}
	return decodeDischargeOwned(data)
}

// decodeDischargeOwned is DecodeDischarge for bytes nobody else holds:
// wire.ReadDischarge and wire.ReadDischargeBlock check the bytes, the
// checks below what the fields mean.
func decodeDischargeOwned(data []byte) (*Discharge, error) {
	w, off, err := wire.ReadDischarge(data)
	if err != nil {
		return nil, dischargeMalformed(err.Error())
	}
	switch {
	case w.Version != FormatVersion:
		return nil, dischargeMalformed("unsupported format version")
	case len(w.Sig) != dischargeSigBytes:
		return nil, dischargeMalformed("signature must be 64 bytes")
	}
	dec := wire.NewCaveatDecoder(data, nil)
	b, cavs, err := wire.ReadDischargeBlock(data, off, off+len(w.Block), &dec)
	if err != nil {
		var ce *caveat.Error
		if errors.As(err, &ce) {
			return nil, &Error{Block: -1, Kind: ce.Kind, Reason: ce.Reason, Err: ErrMalformedDischarge}
		}
		return nil, dischargeMalformed(err.Error())
	}
	if err := checkApproverID(b.KeyID); err != nil {
		return nil, dischargeMalformed(err.Error())
	}
	switch {
	case len(b.ID) != dischargeNonceBytes:
		return nil, dischargeMalformed("nonce must be 16 bytes")
	case len(b.Binding) != bindingBytes:
		return nil, dischargeMalformed("binding must be 32 bytes")
	}
	if err := checkDischargeCaveats(cavs); err != nil {
		return nil, err
	}
	d := &Discharge{raw: data, block: w.Block, sig: w.Sig, keyID: b.KeyID, caveats: cavs}
	copy(d.nonce[:], b.ID)
	copy(d.binding[:], b.Binding)
	return d, nil
}

// checkDischargeCaveats checks the rules of a discharge's caveats that
// the wire does not know: at most MaxDischargeCaveats, an until caveat,
// and no approval caveat (an approval cannot need another approval).
func checkDischargeCaveats(cavs []caveat.Caveat) error {
	if len(cavs) > MaxDischargeCaveats {
		return dischargeMalformed("more caveats than the limit")
	}
	until := false
	for _, c := range cavs {
		switch c.Kind {
		case caveat.Approval:
			return &Error{Block: -1, Kind: c.Kind, Reason: "a discharge cannot carry an approval caveat", Err: ErrMalformedDischarge}
		case caveat.Until:
			until = true
		}
	}
	if !until {
		return &Error{Block: -1, Kind: caveat.Until, Reason: "a discharge must carry an until caveat", Err: ErrMalformedDischarge}
	}
	return nil
}

// checkApproverID is package key's key-id rule (which every approver's key
// id follows): the ticket's rule, 1 to MaxKeyIDBytes bytes 0x21..0x7E, and
// no '+'.
func checkApproverID(id string) error {
	if reason := keyIDProblem(id); reason != "" {
		return errors.New(reason)
	}
	if strings.IndexByte(id, '+') >= 0 {
		return errors.New("key id must not contain '+'")
	}
	return nil
}

func dischargeMalformed(reason string) error {
	return &Error{Block: -1, Reason: reason, Err: ErrMalformedDischarge}
}

// Encode returns the discharge's CBOR form (a copy).
func (d *Discharge) Encode() []byte { return bytes.Clone(d.raw) }

// String returns the text form: [DischargePrefix] and the unpadded
// base64url of [Discharge.Encode].
func (d *Discharge) String() string { return DischargePrefix + b64.EncodeToString(d.raw) }
