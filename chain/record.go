package chain

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// Domain-separation prefixes. Every signature or tag this package makes
// covers one of these prefixes followed by the message, so a signature of
// one kind can never be taken for another.
const (
	recordDomain     = "tickettool/v1 receipt\x00"
	originDomain     = "tickettool/v1 receipt origin\x00"
	checkpointDomain = "tickettool/v1 checkpoint\x00"
)

// Record is one receipt: one authorisation decision or event. Its encoding
// is described in the package documentation and in FORMAT.md.
//
// Seq, Time, Prev, Alg and Sig are filled in by [Log.Append]; the other
// fields are the caller's. Empty optional fields are omitted from the
// encoding, so an empty slice and a nil slice encode alike (and decode as
// nil). Text fields must be valid UTF-8.
type Record struct {
	Seq      uint64    // index of the record in its log, from 0
	Time     time.Time // whole milliseconds, UTC once decoded
	Kind     Kind
	TicketID []byte // the ticket the record is about (at most MaxIDBytes)
	FamilyID []byte // the block-0 ticket id all its descendants share
	Block    int    // the ticket's block the record is about
	Tool     string
	Op       string
	Subjects []string // the request's subjects (paths, URLs, ...)
	Check    string   // for a refusal: the check that refused
	Caveat   string   // for a refusal: the caveat kind that refused
	Reason   string   // for a refusal: a short reason a person can act on
	Note     string   // anything else worth recording
	Prev     [32]byte // SHA-256 of the previous record's bytes, or OriginHash
	Alg      key.Alg  // the algorithm of Sig
	Sig      []byte   // signature over SigningInput
	// Approvals are, in an allowed record, the discharges that allowed the
	// call (field 17, FORMAT.md §1.2): at most MaxApprovals.
	Approvals []Approval
}

// Approval names one discharge that allowed a call: the approver's key id
// (1 to MaxIDBytes bytes) and the discharge id, DID (spec/FORMAT.md §4.6).
type Approval struct {
	KeyID string
	ID    [32]byte
}

// OriginHash is the prev value of a log's first record:
// SHA-256("tickettool/v1 receipt origin" || 0x00 || origin). It binds the
// whole chain to the log's origin.
func OriginHash(origin string) [32]byte {
	return sha256.Sum256([]byte(originDomain + origin))
}

// Hash is the chain hash of a record: SHA-256 of its exact bytes, as the
// next record's Prev holds it.
func Hash(record []byte) [32]byte { return sha256.Sum256(record) }

func checkText(field string, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s is longer than %d bytes", field, max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", field)
	}
	return nil
}

// toWire checks r's fields and returns its wire form without the signature.
func (r *Record) toWire() (wire.Record, error) {
	var w wire.Record
	if !r.Kind.valid() {
		return w, fmt.Errorf("invalid kind %d", r.Kind)
	}
	if sigSize(r.Alg) == 0 {
		return w, fmt.Errorf("invalid algorithm %v", r.Alg)
	}
	ms := r.Time.UnixMilli()
	if ms < 0 || ms > MaxTimeMillis {
		return w, fmt.Errorf("time %s is out of range", r.Time.UTC().Format(time.RFC3339))
	}
	if len(r.TicketID) > MaxIDBytes || len(r.FamilyID) > MaxIDBytes {
		return w, fmt.Errorf("ticket or family id is longer than %d bytes", MaxIDBytes)
	}
	if r.Block < 0 || r.Block > MaxBlock {
		return w, fmt.Errorf("block %d is out of range", r.Block)
	}
	if len(r.Subjects) > MaxSubjects {
		return w, fmt.Errorf("more than %d subjects", MaxSubjects)
	}
	for _, s := range r.Subjects {
		if err := checkText("subject", s, MaxNameBytes); err != nil {
			return w, err
		}
	}
	for _, f := range [...]struct {
		name, v string
		max     int
	}{
		{"tool", r.Tool, MaxNameBytes}, {"op", r.Op, MaxNameBytes},
		{"check", r.Check, MaxNameBytes}, {"caveat", r.Caveat, MaxNameBytes},
		{"reason", r.Reason, MaxReasonBytes}, {"note", r.Note, MaxNoteBytes},
	} {
		if err := checkText(f.name, f.v, f.max); err != nil {
			return w, err
		}
	}
	if len(r.Approvals) > MaxApprovals {
		return w, fmt.Errorf("more than %d approvals", MaxApprovals)
	}
	for _, a := range r.Approvals {
		if a.KeyID == "" {
			return w, errors.New("an approval has an empty key id")
		}
		if err := checkText("approval key id", a.KeyID, MaxIDBytes); err != nil {
			return w, err
		}
	}
	w = wire.Record{
		Seq: r.Seq, Time: uint64(ms), Kind: uint8(r.Kind),
		TicketID: r.TicketID, FamilyID: r.FamilyID, Block: uint64(r.Block),
		Tool: r.Tool, Op: r.Op, Subjects: r.Subjects,
		Check: r.Check, Caveat: r.Caveat, Reason: r.Reason, Note: r.Note,
		Prev: r.Prev[:], Alg: wireAlg(r.Alg),
	}
	for _, a := range r.Approvals {
		w.Approvals = append(w.Approvals, wire.RecordApproval{KeyID: a.KeyID, ID: bytes.Clone(a.ID[:])})
	}
	return w, nil
}

// unsigned returns the encoding of r without field 16, and how many of its
// last bytes are field 17's pair (0 without approvals): the signature's
// pair goes before them.
func (r *Record) unsigned() ([]byte, int, error) {
	w, err := r.toWire()
	if err != nil {
		return nil, 0, err
	}
	b, err := wire.Marshal(w)
	if err != nil {
		return nil, 0, fmt.Errorf("encode: %v", err)
	}
	tail := 0
	if len(w.Approvals) > 0 {
		v, err := wire.Marshal(w.Approvals)
		if err != nil {
			return nil, 0, fmt.Errorf("encode: %v", err)
		}
		tail = 1 + len(v) // the key 0x11, then the array
	}
	return b, tail, nil
}

// withSig returns the record's full encoding from its unsigned encoding:
// the map gains one pair, key 16 with the signature as a byte string,
// after every other key but 17, whose pair (the last tail bytes of
// unsigned) follows it (FORMAT.md §1.1). A record has at most 16 pairs
// without its signature, so its map head is the single byte 0xa0|n, and
// at most 17 with it (0xb1).
func withSig(unsigned []byte, tail int, sig []byte) ([]byte, error) {
	if len(unsigned) == 0 || unsigned[0]>>5 != 5 || unsigned[0]&0x1f > 16 || tail < 0 || tail >= len(unsigned) {
		return nil, fmt.Errorf("unexpected record head")
	}
	if len(sig) < 24 || len(sig) > 255 {
		return nil, fmt.Errorf("signature of %d bytes", len(sig))
	}
	cut := len(unsigned) - tail
	out := make([]byte, 0, len(unsigned)+3+len(sig))
	out = append(out, unsigned[0]+1)
	out = append(out, unsigned[1:cut]...)
	out = append(out, 0x10, 0x58, byte(len(sig)))
	out = append(out, sig...)
	out = append(out, unsigned[cut:]...)
	if len(out) > MaxRecordBytes {
		return nil, fmt.Errorf("record is longer than %d bytes", MaxRecordBytes)
	}
	return out, nil
}

// Marshal returns the record's one encoding, signature included. Time is
// encoded in whole milliseconds (truncated). It fails when a field is out
// of bounds or Sig is not a signature of Alg's size; it does not check the
// signature.
func (r Record) Marshal() ([]byte, error) {
	if len(r.Sig) != sigSize(r.Alg) {
		return nil, fmt.Errorf("%w: signature is %d bytes, %s needs %d", ErrMalformed, len(r.Sig), r.Alg, sigSize(r.Alg))
	}
	u, tail, err := r.unsigned()
	if err == nil {
		var b []byte
		if b, err = withSig(u, tail, r.Sig); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
}

// SigningInput returns the bytes a record's signature covers:
// "tickettool/v1 receipt" || 0x00 || the encoding of the record's map
// without key 16. Sig is ignored.
func (r Record) SigningInput() ([]byte, error) {
	u, _, err := r.unsigned()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return append([]byte(recordDomain), u...), nil
}

// Decode decodes one record strictly: data must be exactly one canonical
// CBOR item (RFC 8949 §4.2.1) within the limits, with no unknown, missing
// or empty-but-present fields, and must be the record's one encoding. It
// does not check the signature (see [VerifyRecord]).
func Decode(data []byte) (Record, error) {
	r, _, err := decode(data)
	if err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return r, nil
}

// decode returns the record and its signing input, or an error whose text
// is a reason without the package prefix.
func decode(data []byte) (Record, []byte, error) {
	if len(data) == 0 || data[0]>>5 != 5 {
		return Record{}, nil, errors.New("not a record: a record is a CBOR map")
	}
	w, err := wire.ReadRecord(data)
	if err != nil {
		return Record{}, nil, fmt.Errorf("not a canonical record: %v", err)
	}
	r := Record{
		Seq: w.Seq, Kind: Kind(w.Kind),
		TicketID: w.TicketID, FamilyID: w.FamilyID,
		Tool: w.Tool, Op: w.Op, Subjects: w.Subjects,
		Check: w.Check, Caveat: w.Caveat, Reason: w.Reason, Note: w.Note,
		Alg: algOfWire(w.Alg), Sig: w.Sig,
	}
	for _, a := range w.Approvals {
		if len(a.ID) != len(Approval{}.ID) {
			return Record{}, nil, fmt.Errorf("an approval's discharge id is %d bytes, not 32", len(a.ID))
		}
		r.Approvals = append(r.Approvals, Approval{KeyID: a.KeyID, ID: [32]byte(a.ID)})
	}
	if w.Time > MaxTimeMillis {
		return Record{}, nil, fmt.Errorf("time %d is out of range", w.Time)
	}
	r.Time = time.UnixMilli(int64(w.Time)).UTC()
	if w.Block > MaxBlock {
		return Record{}, nil, fmt.Errorf("block %d is out of range", w.Block)
	}
	r.Block = int(w.Block)
	if len(w.Prev) != len(r.Prev) {
		return Record{}, nil, fmt.Errorf("prev is %d bytes, not 32", len(w.Prev))
	}
	copy(r.Prev[:], w.Prev)
	if n := sigSize(r.Alg); n == 0 || len(r.Sig) != n {
		return Record{}, nil, fmt.Errorf("signature of %d bytes for algorithm %d", len(r.Sig), w.Alg)
	}
	u, tail, err := r.unsigned()
	if err != nil {
		return Record{}, nil, err
	}
	full, err := withSig(u, tail, r.Sig)
	if err != nil {
		return Record{}, nil, err
	}
	if !bytes.Equal(full, data) {
		return Record{}, nil, fmt.Errorf("not the record's one encoding (missing or empty field)")
	}
	return r, append([]byte(recordDomain), u...), nil
}
