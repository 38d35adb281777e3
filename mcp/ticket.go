package mcp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// ErrNeverAllowed is matched (errors.Is) by every *[StartError].
var ErrNeverAllowed = errors.New("mcp: the ticket can never allow a call")

// StartError is the error of [New] and SetTicket for a ticket that can never
// allow a tools/call through this proxy: the verifier refuses it whatever
// the call (unknown key, wrong mode, bad chain, a block that widens,
// revoked, against Config.Options, expired, or a caveat kind it does not
// know), its aud caveats do not name Config.Audience, or its tools caveats
// name no tool of this server. A ticket that is only not yet valid (nbf) is
// not an error: it can become valid.
type StartError struct {
	// Refusals say why, as the verifier renders them; a tools or aud
	// refusal names the block and caveat concerned.
	Refusals []verify.Refusal
	// Servers, for a tools refusal, are the server names the ticket's
	// tools caveats qualify tools by (sorted, unique): the names
	// Config.ServerName could be.
	Servers []string
}

func (e *StartError) Error() string {
	return "mcp: the ticket can never allow a call: " + refusalText(e.Refusals)
}

// Is reports whether target is [ErrNeverAllowed].
func (e *StartError) Is(target error) bool { return target == ErrNeverAllowed }

// ticketState is everything the proxy derives from its ticket. It is never
// changed once made: SetTicket replaces the whole value, and each decision
// reads it once (Proxy.state), so a decision made while the ticket is
// replaced uses the old ticket or the new one, never parts of both.
type ticketState struct {
	ticket *token.Ticket
	// prepared is the ticket with its chain, narrowing and the verifier's
	// policy on the ticket checked once; each call checks only what
	// depends on it (Proxy.decide).
	prepared *guard.PreparedTicket
	tools    []caveat.Caveat // every tools caveat of the ticket
	paths    []caveat.Caveat // every paths caveat of the ticket
	bound    bool            // the ticket has a holder caveat
	jkt      string          // the current holder's RFC 7638 thumbprint, when bound
	// approvals are the ticket's approval caveats: a call then needs
	// discharges (Config.DischargeDir).
	approvals []token.UnverifiedApproval
}

// state returns the ticket the proxy enforces now.
func (p *Proxy) state() *ticketState { return p.ticket.Load() }

// SetTicket replaces the ticket the proxy enforces, after the checks [New]
// makes: on any error (a *[StartError] for a ticket that can never allow a
// call, another error for a bound ticket whose holder is not
// Config.Holder) the proxy keeps its ticket. Calls decided from then on
// use the new ticket; budgets and DPoP replay are the Store's, shared by
// both (a calls budget is counted per block, so an attenuation of the old
// ticket spends the old ticket's budget too). SetTicket is safe to call
// while the proxy serves.
func (p *Proxy) SetTicket(t *token.Ticket) error {
	st, err := p.newState(t)
	if err != nil {
		return err
	}
	p.ticket.Store(st)
	return nil
}

// newState checks t against the proxy's configuration and derives its
// state. It verifies t's chain once (Guard.PrepareTicket), validates it now
// and refuses a ticket that can never allow a call (see StartError). A
// ticket that is not yet valid is accepted with a warning in the log.
func (p *Proxy) newState(t *token.Ticket) (*ticketState, error) {
	if t == nil {
		return nil, errors.New("mcp: config needs a ticket")
	}
	prepared, err := p.guard.PrepareTicket(t)
	if err != nil {
		return nil, err // verify prefixes its errors
	}
	d := prepared.Validate(p.cfg.Now())
	var never []verify.Refusal
	for _, r := range d.Refusals {
		if r.Check == verify.CheckCaveat && r.Kind == caveat.NotBefore {
			p.log.Printf("warning: every call is refused for now: %s", r)
			continue
		}
		never = append(never, r)
	}
	if len(never) > 0 {
		return nil, &StartError{Refusals: never}
	}
	// The chain verified: its blocks can be trusted.
	st := &ticketState{ticket: t, prepared: prepared, approvals: t.UnverifiedApprovals()}
	blocks := t.UnverifiedBlocks()
	for i := range blocks {
		for _, c := range blocks[i].Caveats {
			switch c.Kind {
			case caveat.Tools:
				st.tools = append(st.tools, c)
			case caveat.Paths:
				st.paths = append(st.paths, c)
			case caveat.Audience:
				if err := c.Evaluate(&caveat.Request{Audience: p.cfg.Audience}, time.Time{}, 0); err != nil {
					return nil, &StartError{Refusals: []verify.Refusal{refusalOf(i, err)}}
				}
			}
		}
	}
	if err := unreachableTools(blocks, p.cfg.ServerName); err != nil {
		return nil, err
	}
	scope, err := t.UnverifiedScope()
	if err != nil {
		return nil, err // token prefixes its errors
	}
	if jkt := scope.Holder(); jkt != nil {
		st.bound = true
		st.jkt = base64.RawURLEncoding.EncodeToString(jkt)
		if p.client {
			// The client proves possession with each request's proof.
			return st, nil
		}
		if p.holder == nil {
			return nil, errors.New("mcp: the ticket is bound to a holder key: the proxy needs that key to prove possession")
		}
		if p.holder.Thumbprint() != base64.RawURLEncoding.EncodeToString(jkt) {
			return nil, errors.New("mcp: the holder key is not the key the ticket is bound to")
		}
		// The proxy holds the holder key: possession is the key itself,
		// in this process, so calls carry no proof (none travels).
		if st.prepared, err = st.prepared.WithHolderKey(p.holder); err != nil {
			return nil, err // verify prefixes its errors
		}
	}
	return st, nil
}

// refusalOf renders a caveat's error in block i as the verifier would.
func refusalOf(i int, err error) verify.Refusal {
	r := verify.Refusal{Check: verify.CheckCaveat, Block: i, Reason: err.Error()}
	var ce *caveat.Error
	if errors.As(err, &ce) {
		r.Kind, r.Reason = ce.Kind, ce.Reason
	}
	return r
}

// unreachableTools returns a *StartError when no tool of the server passes
// every tools caveat in blocks. The proxy asks the caveats about
// "SERVER/tool" (server set) or "tool" (server empty); an entry "tool"
// admits both, an entry "S/tool" only "S/tool". So the tools a caveat
// admits here are its unqualified entries and, when server is set, the
// entries qualified by server; the ticket admits the tools every caveat
// admits.
func unreachableTools(blocks []token.Block, server string) error {
	var admitted, servers []string
	seen := false // a tools caveat was seen: admitted is its list
	for i := range blocks {
		for _, c := range blocks[i].Caveats {
			if c.Kind != caveat.Tools {
				continue
			}
			var here []string
			for _, e := range c.List {
				s, name, qualified := strings.Cut(e, "/")
				switch {
				case !qualified:
					here = append(here, e)
				case s == server:
					here = append(here, name)
				default:
					servers = append(servers, s)
				}
			}
			if !seen {
				admitted, seen = here, true
			} else {
				admitted = slices.DeleteFunc(admitted, func(n string) bool { return !slices.Contains(here, n) })
			}
			if len(admitted) == 0 {
				slices.Sort(servers)
				servers = slices.Compact(servers)
				return &StartError{Servers: servers, Refusals: []verify.Refusal{{
					Check: verify.CheckCaveat, Block: i, Kind: caveat.Tools, Reason: toolsReason(server, servers),
				}}}
			}
		}
	}
	return nil
}

func toolsReason(server string, servers []string) string {
	names := strings.Join(servers, ", ")
	switch {
	case len(servers) == 0:
		return "no tool passes every tools caveat"
	case server == "":
		return "every tool it admits is qualified by a server name (" + names + ") and the proxy has no server name"
	}
	return fmt.Sprintf("no tool of server %q is admitted, only tools of %s", server, names)
}
