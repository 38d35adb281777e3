package verify

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
)

// GuardConfig configures a Guard.
type GuardConfig struct {
	Keys    *token.Keyring
	Options Options
	// Ledger counts budgets; nil means a new MemoryLedger.
	Ledger Ledger
	// Replay remembers DPoP proofs; nil means a new in-memory cache of
	// DefaultReplayEntries entries.
	Replay dpop.ReplayCache
	// Receipts, when set, receives one record per decision, written
	// durably before Check returns.
	Receipts *chain.Log
}

// DefaultReplayEntries bounds the default replay cache of a Guard.
const DefaultReplayEntries = 1 << 16

// Guard is the stateful adapter a harness calls before every tool call: it
// runs the pure Verify, then, for an allowed call, refuses a replayed DPoP
// proof and charges the ledger, and writes one receipt for every decision.
// It is safe for concurrent use; it holds no lock of its own.
type Guard struct {
	cfg GuardConfig
}

// NewGuard returns a guard; Keys is required.
func NewGuard(cfg GuardConfig) (*Guard, error) {
	if cfg.Keys == nil {
		return nil, errors.New("verify: guard needs a keyring")
	}
	if cfg.Ledger == nil {
		cfg.Ledger = NewMemoryLedger()
	}
	if cfg.Replay == nil {
		cfg.Replay = dpop.NewMemoryReplayCache(DefaultReplayEntries)
	}
	return &Guard{cfg: cfg}, nil
}

// Check decides whether t allows req at now. An allowed decision has had
// its DPoP proof recorded and its budgets charged; a refused one charged
// nothing. With receipts configured, the decision's receipt is durable when
// Check returns.
//
// A non-nil error means the decision could not be completed (the ledger or
// the receipt log failed): the call must not run. Budgets charged before a
// receipt failure stay charged — failing closed.
func (g *Guard) Check(t *token.Ticket, req *caveat.Request, now time.Time) (Decision, error) {
	d, err := Verify(t, req, g.cfg.Keys, now, &g.cfg.Options)
	if err != nil {
		return d, err
	}
	if d.Allowed && d.Proof != nil {
		if !g.cfg.Replay.Remember(d.Proof.ReplayKey, d.Proof.RememberUntil, now) {
			d.refuse(CheckDPoP, -1, caveat.Holder, "proof replayed: its jti was already used for "+d.Proof.ReplayKey.URI)
		}
	}
	if len(d.Refusals) == 0 && d.Allowed {
		i, err := g.cfg.Ledger.Charge(d.Budgets, req.Cost)
		if err != nil {
			return Decision{}, fmt.Errorf("verify: ledger: %w", err)
		}
		if i >= 0 {
			b := d.Budgets[i]
			msg := fmt.Sprintf("budget of %d calls is spent", b.Calls)
			if b.Kind == caveat.Total {
				msg = "total budget of " + b.Total.String() + " would be exceeded"
			}
			d.refuse(CheckCaveat, b.Block, b.Kind, msg)
		}
	}
	d.Allowed = len(d.Refusals) == 0
	if g.cfg.Receipts != nil {
		if err := g.record(receiptFor(&d, t, req), now); err != nil {
			return d, err
		}
	}
	return d, nil
}

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

func (g *Guard) record(r chain.Record, now time.Time) error {
	if g.cfg.Receipts == nil {
		return nil
	}
	fitRecord(&r)
	if _, err := g.cfg.Receipts.Append(r, now); err != nil {
		return fmt.Errorf("verify: receipt: %w", err)
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

func receiptFor(d *Decision, t *token.Ticket, req *caveat.Request) chain.Record {
	r := chain.Record{Kind: chain.KindAllowed, Tool: req.Tool, Op: req.Op, Block: t.Len() - 1}
	if d.BlockIDs != nil {
		id := d.TicketID()
		r.TicketID, r.FamilyID = id[:], d.FamilyID
	}
	r.Subjects = append(append(r.Subjects, req.Paths...), req.URLs...)
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
	const maxName, maxSubject, maxSubjects = 256, 512, 8 << 10
	r.Tool = fit(r.Tool, maxName)
	r.Op = fit(r.Op, maxName)
	r.Reason = fit(r.Reason, chain.MaxReasonBytes)
	r.Note = fit(r.Note, chain.MaxNoteBytes/2)
	total := 0
	for i, s := range r.Subjects {
		s = fit(s, maxSubject)
		if (i == chain.MaxSubjects-1 && len(r.Subjects) > chain.MaxSubjects) || total+len(s) > maxSubjects {
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
