package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/pathcheck"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Config is what Decide decides with. Harness, Guard and Tickets are
// required.
type Config struct {
	Harness Harness
	// Guard verifies, admits in its store (with Hold zero: budgets are
	// charged at the pre-tool event and never given back) and writes the
	// receipt of every decision it makes.
	Guard   *guard.Guard
	Tickets Tickets
	// Receipts is the guard's receipt log (Guard's Config.Receipts, or
	// nil): refusals the hook
	// makes before the guard (a tool it does not know, a write to its own
	// files) and post-tool events are recorded there too.
	Receipts *chain.Log
	// Protected are the files no call may write (see Protected); every
	// harness's hook configuration directories are protected as well.
	Protected []Protected
	// Audience is the verifier's own name, for aud caveats.
	Audience string
	Now      func() time.Time
}

// refusalPrefix starts every reason the hook gives.
const refusalPrefix = "tickettool: "

// Decide reads one event from input and returns the answer for
// cfg.Harness. It never fails and never panics: every error (of the
// input, the ticket, the store, the receipt log, the hook itself) is the
// harness's deny, with a reason saying what failed.
func Decide(ctx context.Context, cfg *Config, input []byte) (a Answer) {
	var ev *event
	defer func() {
		if r := recover(); r != nil {
			a = Deny(cfg.Harness, ev, fmt.Sprintf("%shook failed (%v), so the call is refused", refusalPrefix, r))
		}
	}()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if len(input) > MaxEventBytes {
		return cfg.unreadable(fmt.Sprintf("the event is over %d bytes", MaxEventBytes))
	}
	ev, err := parseEvent(cfg.Harness, input)
	if err != nil {
		return cfg.unreadable(trim(err))
	}
	if ev.phase == post {
		return cfg.recordPost(ev)
	}
	return cfg.decidePre(ctx, ev)
}

// unreadable refuses an event the hook cannot read, with a receipt that
// names no tool (the event may not say which).
func (cfg *Config) unreadable(why string) Answer {
	a := Deny(cfg.Harness, nil, refusalPrefix+"cannot read the hook event, so the call is refused: "+why)
	if cfg.Receipts != nil {
		r := chain.Record{Kind: chain.KindRefused, Check: "hook", Reason: fit("cannot read the hook event: "+why, chain.MaxReasonBytes),
			Note: cfg.Harness.String()}
		if _, err := cfg.Receipts.Append(r, cfg.Now()); err != nil {
			return Deny(cfg.Harness, nil, string(bytes.TrimSuffix(a.Stderr, []byte("\n")))+"; and its receipt could not be written: "+trim(err))
		}
	}
	return a
}

// Failure is the answer of a hook that could not even start deciding (its
// key, store or receipt log could not be opened): harness h's deny.
func Failure(h Harness, what error) Answer {
	return Deny(h, nil, refusalPrefix+"the hook cannot decide, so the call is refused: "+trim(what))
}

func (cfg *Config) decidePre(ctx context.Context, ev *event) Answer {
	now := cfg.Now()
	c, err := mapCall(ev)
	if err != nil {
		return cfg.refuse(ev, nil, &call{tool: ev.Tool}, "cannot read the call: "+trim(err), now)
	}
	var subjects []string
	if len(c.paths) > 0 {
		if subjects, err = pathcheck.WithResolved(c.paths, ""); err != nil {
			return cfg.refuse(ev, nil, c, trim(err), now)
		}
	}
	ch, terr := cfg.Tickets.choose(ev.AgentType)
	var t *token.Ticket
	if terr == nil {
		t = ch.ticket
	}
	if p := protectedHit(subjects, cfg.Protected, c.writes); p != nil {
		what := "write to"
		if !c.writes {
			what = "read"
		}
		return cfg.refuse(ev, t, c, fmt.Sprintf("refused whatever the ticket says: %s %s, which the hook protects (its own ticket, keys, store, receipts, or a harness's hook configuration)", what, p.Path), now)
	}
	if terr != nil {
		return cfg.refuse(ev, nil, c, "the ticket cannot be read: "+trim(terr), now)
	}
	if ch.main != nil {
		why, err := narrows(cfg.Guard, ch.ticket, ch.main, now)
		if err == nil && why != "" {
			err = errors.New(why)
		}
		if err != nil {
			return cfg.refuse(ev, ch.ticket, c, fmt.Sprintf("subagent %s: %s is refused for every call: %s", ev.AgentType, ch.from, trim(err)), now)
		}
	}
	pt, err := cfg.Guard.PrepareTicket(ch.ticket)
	if err != nil {
		return cfg.refuse(ev, ch.ticket, c, "the ticket cannot be checked: "+trim(err), now)
	}
	sc := unverifiedScope(ch.ticket)
	named := sc.names(c.tool)
	if !c.known && !named {
		return cfg.refuse(ev, ch.ticket, c, fmt.Sprintf("tool %s is not in the hook's table of %s tools: refused unless the ticket's tools caveat names it", c.tool, cfg.Harness), now)
	}
	req := &caveat.Request{Tool: c.tool, Op: "invoke", Paths: subjects, URLs: c.urls, Audience: cfg.Audience}
	if !c.mcp && named {
		sc.fill(req)
	}
	sctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	d, err := cfg.Guard.VerifyPreparedNoted(sctx, pt, req, now, eventNote(ev))
	if err != nil {
		return Deny(cfg.Harness, ev, refusalPrefix+"the decision could not be recorded, so the call is refused: "+trim(err))
	}
	if d.Allowed {
		return allow(cfg.Harness)
	}
	return Deny(cfg.Harness, ev, reason(c, ev, refusalText(d.Refusals, c, sc)))
}

// refuse is a refusal the hook makes before the guard: it is recorded in
// the receipt log like the guard's, and the log failing refuses all the
// same.
func (cfg *Config) refuse(ev *event, t *token.Ticket, c *call, why string, now time.Time) Answer {
	text := reason(c, ev, why)
	if cfg.Receipts != nil {
		r := chain.Record{Kind: chain.KindRefused, Tool: fit(c.tool, 256), Op: "invoke", Check: "hook",
			Reason: fit(why, chain.MaxReasonBytes), Note: fit(eventNote(ev), 512)}
		r.Subjects = subjectsOf(c)
		// The ticket's ids only once its chain verified: a receipt
		// names no ticket it cannot vouch for.
		if pt, err := cfg.Guard.PrepareTicket(t); t != nil && err == nil {
			if d := pt.Validate(now); d.BlockIDs != nil {
				id := d.TicketID()
				r.Block, r.FamilyID, r.TicketID = len(d.BlockIDs)-1, d.FamilyID, id[:]
			}
		}
		if _, err := cfg.Receipts.Append(r, now); err != nil {
			text += "; and its receipt could not be written: " + trim(err)
		}
	}
	return Deny(cfg.Harness, ev, text)
}

// recordPost records a post-tool event as a receipt linked to its call by
// the tool-use id. It never gives a budget back and never blocks.
func (cfg *Config) recordPost(ev *event) Answer {
	if cfg.Receipts == nil {
		return quiet("")
	}
	c, err := mapCall(ev)
	if err != nil {
		c = &call{tool: ev.Tool}
	}
	outcome := "ran"
	if ev.Failed {
		outcome = "failed"
	}
	r := chain.Record{Kind: chain.KindOther, Tool: fit(c.tool, 256), Op: "invoke", Subjects: subjectsOf(c),
		Note: fit("post-tool: "+outcome+"; "+eventNote(ev), 512)}
	if _, err := cfg.Receipts.Append(r, cfg.Now()); err != nil {
		return quiet(refusalPrefix + "the post-tool receipt could not be written: " + trim(err))
	}
	return quiet("")
}

// eventNote names the event in a receipt: harness, event, tool-use id
// and subagent, so that a pre-tool and a post-tool record can be paired.
func eventNote(ev *event) string {
	if ev == nil {
		return ""
	}
	s := ev.Harness.String() + " " + ev.Name + " " + ev.Tool
	if ev.ToolUseID != "" {
		s += " tool_use_id " + ev.ToolUseID
	}
	if ev.AgentType != "" {
		s += " agent " + ev.AgentType
	}
	return oneLine(s)
}

func subjectsOf(c *call) []string {
	var s []string
	for _, x := range append(append([]string(nil), c.paths...), c.urls...) {
		if len(s) == chain.MaxSubjects-1 {
			s = append(s, "…")
			break
		}
		s = append(s, fit(x, 512))
	}
	return s
}

// reason is the one line the model reads: what was asked, and why not.
func reason(c *call, ev *event, why string) string {
	asked := c.tool
	if ev != nil && ev.Tool != c.tool {
		asked += " (" + ev.Tool + ")"
	}
	if subj := subjectsOf(c); len(subj) > 0 {
		if len(subj) > 3 {
			subj = append(subj[:3:3], "…")
		}
		asked += " " + strings.Join(subj, " ")
	}
	return oneLine(refusalPrefix + "refused " + asked + ": " + why)
}

// refusalText renders the guard's refusals, with a hint for a tool that
// has no subject under a paths or hosts caveat.
func refusalText(rs []verify.Refusal, c *call, sc *scope) string {
	parts := make([]string, len(rs))
	hint := ""
	for i, r := range rs {
		parts[i] = r.String()
		if r.Kind == caveat.Paths && len(c.paths) == 0 || r.Kind == caveat.Hosts && len(c.urls) == 0 {
			hint = fmt.Sprintf(" (%s has no %s the ticket can check: it is allowed only when the ticket's tools caveat names it)",
				c.tool, map[bool]string{true: "path", false: "URL"}[r.Kind == caveat.Paths])
		}
	}
	return strings.Join(parts, "; ") + hint
}

// trim drops a package prefix from an error's text.
func trim(err error) string {
	s := err.Error()
	for _, p := range []string{"hook: ", "pathcheck: ", "argsubject: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

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
