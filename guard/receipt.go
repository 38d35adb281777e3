package guard

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// RecordIntent writes a receipt of a person's request in their words.
func (g *Guard) RecordIntent(intent string, now time.Time) error {
	return g.record(chain.Record{Kind: chain.KindIntent, Note: intent}, now)
}

// RecordMinted writes a receipt that t was minted. Its chain is not
// checked: call it where the ticket was made.
func (g *Guard) RecordMinted(t *token.Ticket, now time.Time) error {
	return g.record(ticketRecord(chain.KindMinted, t), now)
}

// RecordDelegated writes a receipt that t's last block was appended.
func (g *Guard) RecordDelegated(t *token.Ticket, now time.Time) error {
	return g.record(ticketRecord(chain.KindDelegated, t), now)
}

// record writes r durably before it returns. Concurrent decisions share
// the log's writes and fsyncs (chain.Log.Append's group commit), so the
// receipts of many callers cost about one fsync per batch, not per call.
func (g *Guard) record(r chain.Record, now time.Time) error {
	if g.cfg.Receipts == nil {
		return nil
	}
	fitRecord(&r)
	if _, err := g.cfg.Receipts.Append(r, now); err != nil {
		return fmt.Errorf("%w (the receipt was not written)", err) // chain prefixes its errors
	}
	return nil
}

func ticketRecord(kind chain.Kind, t *token.Ticket) chain.Record {
	blocks := t.UnverifiedBlocks()
	r := chain.Record{Kind: kind, FamilyID: blocks[0].TicketID, Block: len(blocks) - 1}
	if id, ok := t.UnverifiedLastID(); ok {
		r.TicketID = id[:]
	}
	for _, c := range blocks[len(blocks)-1].Caveats {
		if r.Note != "" {
			r.Note += " "
		}
		r.Note += c.String()
	}
	return r
}

func receiptFor(d *verify.Decision, t *token.Ticket, req *caveat.Request) chain.Record {
	r := chain.Record{Kind: chain.KindAllowed, Tool: req.Tool, Op: req.Op, Block: t.Len() - 1}
	if d.BlockIDs != nil {
		id := d.TicketID()
		r.TicketID, r.FamilyID = id[:], d.FamilyID
	}
	r.Subjects = append(append(r.Subjects, req.Paths...), req.URLs...)
	if d.Allowed { // which approver's discharge allowed the call (chain/FORMAT.md §1.2)
		for _, u := range d.Discharges {
			r.Approvals = append(r.Approvals, chain.Approval{KeyID: u.KeyID, ID: u.ID})
		}
	}
	if !d.Allowed {
		f := d.Refusals[0]
		r.Kind, r.Check, r.Reason = chain.KindRefused, string(f.Check), f.Reason
		if f.Kind != 0 {
			r.Caveat = f.Kind.String()
		}
		if f.Block >= 0 {
			r.Block = f.Block
		}
		// Every further refusal goes in the note: nothing is lost.
		for _, more := range d.Refusals[1:] {
			if r.Note != "" {
				r.Note += "; "
			}
			r.Note += more.String()
		}
	}
	return r
}

// fitRecord makes request-derived fields fit a receipt: valid UTF-8, each
// within its limit, at most chain.MaxSubjects subjects. What is cut is
// marked, so a receipt never claims more than it holds, and a hostile
// request cannot make its own refusal unrecordable.
func fitRecord(r *chain.Record) {
	r.Tool = fit(r.Tool, maxName)
	r.Op = fit(r.Op, maxName)
	r.Reason = fit(r.Reason, chain.MaxReasonBytes)
	r.Note = fit(r.Note, chain.MaxNoteBytes/2)
	total := 0
	for i, s := range r.Subjects {
		s = fit(s, maxSubject)
		if (i == chain.MaxSubjects-1 && len(r.Subjects) > chain.MaxSubjects) || total+len(s) > maxSubjectBytes {
			r.Subjects = append(r.Subjects[:i:i], fmt.Sprintf("… %d more", len(r.Subjects)-i))
			break
		}
		r.Subjects[i], total = s, total+len(s)
	}
}

func fit(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
