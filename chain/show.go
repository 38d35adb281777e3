package chain

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
)

// String returns one human line for the record, for display: seq, time,
// kind and every non-empty field, text quoted (Go syntax) so control
// characters cannot forge lines, ids in hex.
func (r Record) String() string {
	var b []byte
	b = strconv.AppendUint(append(b, '#'), r.Seq, 10)
	b = append(b, ' ')
	b = r.Time.UTC().AppendFormat(b, timeFormat)
	b = append(b, ' ')
	b = append(b, r.Kind.String()...)
	if len(r.TicketID) > 0 {
		b = fmt.Appendf(b, " ticket=%x block=%d", r.TicketID, r.Block)
	}
	if len(r.FamilyID) > 0 {
		b = fmt.Appendf(b, " family=%x", r.FamilyID)
	}
	for _, f := range [...]struct{ k, v string }{
		{"tool", r.Tool}, {"op", r.Op},
	} {
		if f.v != "" {
			b = append(b, " "+f.k+"="...)
			b = strconv.AppendQuote(b, f.v)
		}
	}
	for _, s := range r.Subjects {
		b = strconv.AppendQuote(append(b, " subject="...), s)
	}
	for _, f := range [...]struct{ k, v string }{
		{"check", r.Check}, {"caveat", r.Caveat}, {"reason", r.Reason}, {"note", r.Note},
	} {
		if f.v != "" {
			b = append(b, " "+f.k+"="...)
			b = strconv.AppendQuote(b, f.v)
		}
	}
	return string(b)
}

// timeFormat is RFC 3339 with exactly three fractional digits.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// jsonRecord is the JSON view of a record (for "receipt show --json"):
// ids, prev and sig in lowercase hex, time in RFC 3339 with milliseconds,
// kind and alg by name, empty optional fields omitted.
type jsonRecord struct {
	Seq      uint64   `json:"seq"`
	Time     string   `json:"time"`
	Kind     string   `json:"kind"`
	TicketID string   `json:"ticket_id,omitempty"`
	FamilyID string   `json:"family_id,omitempty"`
	Block    *int     `json:"block,omitempty"`
	Tool     string   `json:"tool,omitempty"`
	Op       string   `json:"op,omitempty"`
	Subjects []string `json:"subjects,omitempty"`
	Check    string   `json:"check,omitempty"`
	Caveat   string   `json:"caveat,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Note     string   `json:"note,omitempty"`
	Prev     string   `json:"prev"`
	Alg      string   `json:"alg"`
	Sig      string   `json:"sig"`
}

// MarshalJSON returns the JSON view of the record: {"seq", "time" (RFC
// 3339, UTC, milliseconds), "kind", "ticket_id" and "family_id" (hex),
// "block" (present with a ticket id), "tool", "op", "subjects", "check",
// "caveat", "reason", "note" (each omitted when empty), "prev" and "sig"
// (hex), "alg"}. It is a view for people and tools; the CBOR encoding is
// the record.
func (r Record) MarshalJSON() ([]byte, error) {
	j := jsonRecord{
		Seq: r.Seq, Time: r.Time.UTC().Format(timeFormat), Kind: r.Kind.String(),
		TicketID: hex.EncodeToString(r.TicketID), FamilyID: hex.EncodeToString(r.FamilyID),
		Tool: r.Tool, Op: r.Op, Subjects: r.Subjects,
		Check: r.Check, Caveat: r.Caveat, Reason: r.Reason, Note: r.Note,
		Prev: hex.EncodeToString(r.Prev[:]), Alg: wireName(r.Alg), Sig: hex.EncodeToString(r.Sig),
	}
	if len(r.TicketID) > 0 {
		j.Block = &r.Block
	}
	return json.Marshal(j)
}
