package report

import (
	"encoding/hex"
	"path/filepath"
	"time"

	"github.com/tickettool/tickettool/chain"
)

// Report is a log's verdict and what its verified records show.
type Report struct {
	Log       string // the log's file name
	Generated time.Time
	Verdict   Verdict
	Families  []*family
	// MoreFamilies counts the records of families past MaxFamilies.
	MoreFamilies int64
	Counts       counts      // over every verified record
	Intents      []listing   // intent records, at most MaxIntents
	Listed       []listing   // the last MaxListed verified records
	Unlisted     int64       // verified records not in Listed
	Other        counts      // records of no family
	Tickets      []ticketRow // the tickets given beside the log

	seen    int64
	byID    map[string]*family
	ring    []listing
	intentN int64
	first   time.Time
}

// counts counts records by kind.
type counts struct {
	Total, Intent, Minted, Delegated, Allowed, Refused, Other, Captured, Released int64
}

func (c *counts) add(k chain.Kind) {
	c.Total++
	switch k {
	case chain.KindIntent:
		c.Intent++
	case chain.KindMinted:
		c.Minted++
	case chain.KindDelegated:
		c.Delegated++
	case chain.KindAllowed:
		c.Allowed++
	case chain.KindRefused:
		c.Refused++
	case chain.KindCaptured:
		c.Captured++
	case chain.KindReleased:
		c.Released++
	default:
		c.Other++
	}
}

// listing is one record as the page lists it; its strings are the
// record's, escaped when rendered.
type listing struct {
	Seq     uint64
	Time    time.Time
	Kind    string
	Family  string // hex, shortened
	Block   int
	HasTkt  bool
	Tool    string
	Subject string
	More    int // further subjects
	Check   string
	Caveat  string
	Reason  string
	Note    string
}

func listed(rec *chain.Record) listing {
	l := listing{Seq: rec.Seq, Time: rec.Time, Kind: rec.Kind.String(), Block: rec.Block, HasTkt: len(rec.TicketID) > 0,
		Tool: rec.Tool, Check: rec.Check, Caveat: rec.Caveat, Reason: rec.Reason, Note: rec.Note}
	if len(rec.FamilyID) > 0 {
		l.Family = short(rec.FamilyID)
	}
	if len(rec.Subjects) > 0 {
		l.Subject, l.More = rec.Subjects[0], len(rec.Subjects)-1
	}
	return l
}

// short is the first 8 bytes of an id in hex.
func short(id []byte) string { return hex.EncodeToString(id[:min(len(id), 8)]) }

func newReport(path string, o Options) *Report {
	return &Report{Log: filepath.Base(path), Generated: o.Now.UTC(), byID: map[string]*family{}}
}

// add takes one verified record (chain.VerifyOptions.Each).
func (r *Report) add(i int64, rec chain.Record) {
	r.seen = i + 1
	if r.first.IsZero() {
		r.first = rec.Time
	}
	r.Counts.add(rec.Kind)
	if len(r.ring) < MaxListed {
		r.ring = append(r.ring, listed(&rec))
	} else {
		r.ring[i%MaxListed] = listed(&rec)
	}
	if rec.Kind == chain.KindIntent && len(rec.FamilyID) == 0 {
		if r.intentN++; len(r.Intents) < MaxIntents {
			r.Intents = append(r.Intents, listed(&rec))
		}
	}
	if len(rec.FamilyID) == 0 {
		r.Other.add(rec.Kind)
		return
	}
	f := r.family(rec.FamilyID)
	if f == nil {
		r.MoreFamilies++
		return
	}
	f.add(&rec)
}

// family returns the family of id, made on first sight, or nil past
// MaxFamilies.
func (r *Report) family(id []byte) *family {
	if f, ok := r.byID[string(id)]; ok {
		return f
	}
	if len(r.Families) >= MaxFamilies {
		return nil
	}
	f := newFamily(id)
	r.byID[string(id)] = f
	r.Families = append(r.Families, f)
	return f
}

// finish orders what add collected for the page.
func (r *Report) finish() {
	n := int64(len(r.ring))
	start := int64(0)
	if r.seen > MaxListed {
		start = r.seen % MaxListed
	}
	for k := range n {
		r.Listed = append(r.Listed, r.ring[(start+k)%n])
	}
	r.Unlisted = r.seen - n
	for _, f := range r.Families {
		f.finish()
	}
}
