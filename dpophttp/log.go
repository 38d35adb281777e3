package dpophttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/escape"
	"github.com/tickettool/tickettool/token"
)

// CheckHTTP names, in a receipt, a refusal the middleware makes before
// the guard: the request itself is malformed.
const CheckHTTP = "http"

// early records a refusal the middleware makes before the guard (a
// receipt when Options.Receipts is set, and a log line), and returns e.
// A receipt that cannot be written is said in the log; the request is
// refused either way.
func (m *Middleware) early(r *http.Request, t *token.Ticket, e *Error, now time.Time) *Error {
	m.logDecision(r, nil, "refused", e.Code+": "+e.Description)
	if m.opt.Receipts == nil {
		return e
	}
	rec := chain.Record{Kind: chain.KindRefused, Tool: fit(r.Method, 256), Op: fit(strings.ToLower(r.Method), 256),
		Subjects: []string{fit(r.URL.EscapedPath(), 512)}, Check: CheckHTTP, Reason: fit(e.Description, chain.MaxReasonBytes),
		Note: e.Code}
	// The ticket's ids only once its chain verified: a receipt names no
	// ticket it cannot vouch for.
	if t != nil {
		if p, err := m.prepare(t.String()); err == nil {
			if d := p.pt.Validate(now); d.BlockIDs != nil {
				id := d.TicketID()
				rec.Block, rec.FamilyID, rec.TicketID = len(d.BlockIDs)-1, d.FamilyID, id[:]
			}
		}
	}
	if _, err := m.opt.Receipts.Append(rec, now); err != nil {
		m.logLine("error", "the refusal's receipt could not be written: "+err.Error())
	}
	return e
}

// logDecision writes one line for a decision: the verdict, the method and
// path, the tool, and why a refused one was refused.
func (m *Middleware) logDecision(r *http.Request, req *caveat.Request, verdict, why string) {
	if m.opt.Log == nil {
		return
	}
	s := r.Method + " " + r.URL.EscapedPath()
	if req != nil {
		s += " tool=" + req.Tool
	}
	if why != "" {
		s += ": " + why
	}
	m.logLine(verdict, s)
}

func (m *Middleware) logf(r *http.Request, verdict, why string) {
	m.logDecision(r, nil, verdict, why)
}

// logLine writes "VERDICT TEXT" on one line, control characters escaped.
func (m *Middleware) logLine(verdict, text string) {
	if m.opt.Log == nil {
		return
	}
	b := append([]byte(verdict+" "), escape.Controls(nil, []byte(text))...)
	m.logMu.Lock()
	defer m.logMu.Unlock()
	m.opt.Log.Write(append(b, '\n'))
}

// fit cuts s to at most max bytes of valid UTF-8, marked with "…".
func fit(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
