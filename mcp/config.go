package mcp

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Config configures a Proxy. Ticket and Keys are required.
type Config struct {
	// Ticket is enforced on every tools/call.
	Ticket *token.Ticket
	// Keys verify the ticket; Options are the verifier's own policy.
	Keys    *token.Keyring
	Options verify.Options
	// Ledger counts calls and spend; nil means an in-memory ledger that
	// lives as long as the Proxy.
	Ledger verify.Ledger
	// Receipts, when set, receives one durable receipt per tools/call
	// decision, before an allowed call is forwarded.
	Receipts *chain.Log
	// Holder is the holder key of a bound ticket (required then): the
	// proxy signs a DPoP proof with it for each call. A key whose
	// thumbprint is not the ticket's holder is refused by New.
	Holder crypto.Signer
	// ServerName, when set, qualifies tool names ("NAME/tool") for the
	// ticket's tools caveat and names the server in DPoP proofs
	// (mcp://NAME/tool; "server" when unset). It must be 1 to 128 of
	// [A-Za-z0-9_.-].
	ServerName string
	// Audience is the verifier's own name for aud caveats; "" means
	// ServerName.
	Audience string
	// Profile maps tool arguments to paths and URLs; nil means
	// Filesystem().
	Profile *Profile
	// Dir is the server's working directory, against which relative paths
	// are resolved; "" means the proxy's own.
	Dir string
	// MaxMessageBytes bounds one message; 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives one line per refusal and per dropped message; nil means
	// os.Stderr.
	Log io.Writer
}

// Proxy enforces one ticket on the MCP traffic between an agent and a
// server. It is safe for concurrent use: one Proxy may serve several
// sessions, which then share its budgets and replay cache.
type Proxy struct {
	cfg   Config
	guard *verify.Guard
	st    ticketState
	log   *log.Logger
}

// ticketState is what the proxy derives from its ticket.
type ticketState struct {
	ticket *token.Ticket
	text   string
	tools  []caveat.Caveat // every tools caveat of the ticket
	paths  []caveat.Caveat // every paths caveat of the ticket, in block order
	bound  bool            // the ticket has a holder caveat
}

// state returns the ticket state a decision uses.
func (p *Proxy) state() *ticketState { return &p.st }

// New checks cfg and returns a proxy. It verifies the ticket once
// (verify.Validate) and refuses one that can never be allowed: unknown
// key, bad chain, a block that widens, revoked, or against the policy.
// A ticket that fails only a caveat now (expired, not yet valid) is
// accepted with a warning: the calls are refused, with receipts.
func New(cfg Config) (*Proxy, error) {
	if cfg.Ticket == nil {
		return nil, errors.New("mcp: config needs a ticket")
	}
	if cfg.Keys == nil {
		return nil, errors.New("mcp: config needs a keyring")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	if cfg.Profile == nil {
		cfg.Profile = Filesystem()
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.ServerName != "" {
		if _, err := caveat.NewTools(cfg.ServerName + "/x"); err != nil || strings.Contains(cfg.ServerName, "/") {
			return nil, fmt.Errorf("mcp: server name %q: use 1 to 128 of A-Z a-z 0-9 _ . -", cfg.ServerName)
		}
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.ServerName
	}
	if cfg.Dir == "" {
		cfg.Dir, _ = os.Getwd()
	}
	p := &Proxy{cfg: cfg, st: ticketState{ticket: cfg.Ticket, text: cfg.Ticket.String()},
		log: log.New(&logWriter{w: cfg.Log}, "tickettool mcp: ", 0)}

	d, err := verify.Validate(cfg.Ticket, cfg.Keys, cfg.Now(), &cfg.Options)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	for _, r := range d.Refusals {
		if r.Check != verify.CheckCaveat {
			return nil, fmt.Errorf("mcp: the ticket can never be allowed: %s", r)
		}
		p.log.Printf("warning: every call is refused for now: %s", r)
	}
	// The chain verified: its blocks can be trusted.
	for _, b := range cfg.Ticket.UnverifiedBlocks() {
		for _, c := range b.Caveats {
			switch c.Kind {
			case caveat.Tools:
				p.st.tools = append(p.st.tools, c)
			case caveat.Paths:
				p.st.paths = append(p.st.paths, c)
			}
		}
	}
	scope, err := cfg.Ticket.UnverifiedScope()
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	if jkt := scope.Holder(); jkt != nil {
		p.st.bound = true
		if cfg.Holder == nil {
			return nil, errors.New("mcp: the ticket is bound to a holder key: the proxy needs that key to prove possession")
		}
		hs, err := dpop.NewHolderSigner(cfg.Holder)
		if err != nil {
			return nil, fmt.Errorf("mcp: holder key: %w", err)
		}
		if !bytes.Equal(hs.Thumbprint(), jkt) {
			return nil, errors.New("mcp: the holder key is not the key the ticket is bound to")
		}
	}
	p.guard, err = verify.NewGuard(verify.GuardConfig{
		Keys: cfg.Keys, Options: cfg.Options, Ledger: cfg.Ledger, Receipts: cfg.Receipts,
	})
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	return p, nil
}

// qualify returns the tool name the ticket's tools caveat sees.
func (p *Proxy) qualify(tool string) string {
	if p.cfg.ServerName == "" {
		return tool
	}
	return p.cfg.ServerName + "/" + tool
}

// toolAllowed reports whether every tools caveat of the ticket lists tool.
func (p *Proxy) toolAllowed(st *ticketState, tool string) bool {
	req := caveat.Request{Tool: p.qualify(tool)}
	for _, c := range st.tools {
		if c.Check(&req, time.Time{}, 0) != nil {
			return false
		}
	}
	return true
}

// pathsAllowed reports whether every paths caveat of the ticket admits
// every path.
func (p *Proxy) pathsAllowed(st *ticketState, paths []string) bool {
	req := caveat.Request{Paths: paths}
	for _, c := range st.paths {
		if c.Check(&req, time.Time{}, 0) != nil {
			return false
		}
	}
	return true
}
