package mcp

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Config configures a [Proxy]. Ticket (unless ClientTickets) and Keys
// are required.
type Config struct {
	// Ticket is enforced on every tools/call, until SetTicket replaces it.
	Ticket *token.Ticket
	// ClientTickets says the proxy has no ticket of its own (Ticket is
	// nil): each client of its Streamable HTTP listener presents its own
	// with every request (Listen.Clients), and each call is decided under
	// the ticket and proof of the request that carries it. Such a proxy
	// serves only through ListenHandler.
	ClientTickets bool
	// Keys verify the ticket; Options are the verifier's own policy.
	Keys    *token.Keyring
	Options verify.Options
	// Store keeps budgets, used DPoP proofs and revocations, shared by
	// every guard on it; nil means a guard.MemoryStore that lives as long
	// as the Proxy.
	Store guard.Store
	// Hold is how long an allowed call's budgets stay reserved while its
	// outcome is unknown (no answer from the server); then they count as
	// spent. 0 means DefaultHold.
	Hold time.Duration
	// Receipts, when set, receives one durable receipt per tools/call
	// decision, before an allowed call is forwarded.
	Receipts *chain.Log
	// Holder is the holder key of a bound ticket (required then). The
	// proxy holding it is the proof of possession, so calls carry no DPoP
	// proof (verify.Prepared.WithHolderKey): none travels. A key whose
	// thumbprint is not the ticket's current holder is refused by New. A
	// key.Holder never prints its private key.
	Holder *key.Holder
	// ServerName, when set, qualifies tool names ("NAME/tool") for the
	// ticket's tools caveat. It must be 1 to 128 of
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
	// GateTimeout is how long a tools/call waits for a call in flight
	// that may change the filesystem (the gate: such a call runs alone)
	// before it is answered with an error instead of being checked; zero
	// means DefaultGateTimeout.
	GateTimeout time.Duration
	// DischargeDir, when set, is where discharges for the ticket's
	// approval caveats are dropped (New makes the path
	// absolute, for the approve commands it gives): every regular file named
	// *.dis ([DischargeSuffix]), one discharge text per line. It is read
	// anew for each call to a ticket with approval caveats, so a
	// discharge dropped there counts from the next call on, without a
	// restart; for each approval the call carries at most one discharge
	// whose binding is the approval's: one that passes its caveats for
	// the call but for its budgets, from a file the guard announced for
	// this call first, then the latest until. The announced files are read
	// first, then the other *.dis files in name order, at most
	// maxDischargeFiles per call; a regular file all of whose discharges
	// have expired (with Options.Skew) is removed, and a refusal says how
	// many files were skipped and why. A call
	// refused for an approval first writes its arguments to CODE-HEX.json
	// there (mode 0600; CODE the approval's code, HEX the first 8 bytes of
	// the args digest), so that the approve command the agent is given
	// says --args @FILE and --out DIR/CODE-HEX.dis (CODE-HEX-2.dis and so
	// on when that exists: approve --out creates the file, never replacing
	// one nor writing through a link the agent may have planted there).
	DischargeDir string
	// ApproveTicket is how the approve command in a refusal names the
	// ticket, a shell word inserted as is (e.g. "@/home/me/fs.ticket");
	// "" means "TICKET".
	ApproveTicket string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives one line per refusal and per dropped message; nil means
	// os.Stderr.
	Log io.Writer
}

// Proxy enforces one ticket on the MCP traffic between an agent and a
// server. It is safe for concurrent use: one Proxy may serve several
// sessions, which then share its budgets and replay cache; SetTicket
// replaces the ticket while it serves.
type Proxy struct {
	cfg    Config      // read-only once New returns; cfg.Ticket and cfg.Holder are nil
	holder *key.Holder // cfg.Holder
	guard  *guard.Guard
	ticket atomic.Pointer[ticketState]
	log    *log.Logger
	// client is set for a proxy enforcing a client's ticket (forClient):
	// possession of a bound ticket is each request's proof, found in
	// proofs by the call's id.
	client bool
	proofs *sync.Map // idKey -> *presented
}

// New checks cfg and returns a proxy. It verifies the ticket's chain once
// ([guard.Guard.PrepareTicket]; each call then checks revocation, expiry, its
// caveats, budgets and a bound ticket's proof) and refuses, with a
// *[StartError], one that can never allow a call: unknown key, bad chain,
// a block that widens, revoked,
// against the policy, expired, aud caveats that do not name the audience,
// or tools caveats that name no tool of this server (see StartError). A
// ticket that is not yet valid (nbf) is accepted with a warning: its calls
// are refused, with receipts, until it is.
func New(cfg Config) (*Proxy, error) {
	switch {
	case cfg.Ticket == nil && !cfg.ClientTickets:
		return nil, errors.New("mcp: config needs a ticket")
	case cfg.Ticket != nil && cfg.ClientTickets:
		return nil, errors.New("mcp: a proxy with client tickets has no ticket of its own")
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
	if cfg.GateTimeout <= 0 {
		cfg.GateTimeout = DefaultGateTimeout
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
	if cfg.ApproveTicket == "" {
		cfg.ApproveTicket = "TICKET"
	}
	if cfg.DischargeDir != "" {
		if fi, err := os.Stat(cfg.DischargeDir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("mcp: discharge directory %s is not a directory", cfg.DischargeDir)
		}
		// The approve command a refusal gives runs wherever the person
		// is: its paths must not depend on the proxy's directory.
		if abs, err := filepath.Abs(cfg.DischargeDir); err == nil {
			cfg.DischargeDir = abs
		}
	}
	ticket := cfg.Ticket
	cfg.Ticket = nil // from now on the ticket is p.state().ticket
	p := &Proxy{cfg: cfg, log: log.New(&logWriter{w: cfg.Log}, "tickettool mcp: ", 0)}
	if cfg.Holder != nil {
		if cfg.Holder.Alg() == 0 {
			return nil, errors.New("mcp: the proxy's holder key is a zero key.Holder")
		}
		p.holder, p.cfg.Holder = cfg.Holder, nil
	}
	var err error
	if p.cfg.Hold <= 0 {
		p.cfg.Hold = DefaultHold
	}
	if p.cfg.Store == nil {
		p.cfg.Store = guard.NewMemoryStore() // client tickets' proofs are recorded in it too
	}
	p.guard, err = guard.New(guard.Config{
		Keys: cfg.Keys, Options: cfg.Options, Store: p.cfg.Store, Receipts: cfg.Receipts, Hold: p.cfg.Hold,
	})
	if err != nil {
		return nil, err // guard prefixes its errors
	}
	if cfg.ClientTickets {
		return p, nil
	}
	// The guard prepares the ticket under its own keys and options.
	if err := p.SetTicket(ticket); err != nil {
		return nil, err
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

// toolAllowed reports whether every tools caveat of the ticket lists the
// tool, qualified as the caveats see it (Proxy.qualify).
func (st *ticketState) toolAllowed(qualified string) bool {
	req := caveat.Request{Tool: qualified}
	for _, c := range st.tools {
		if c.Evaluate(&req, time.Time{}, 0) != nil {
			return false
		}
	}
	return true
}

// pathsAllowed reports whether every paths caveat of the ticket admits
// every path.
func (st *ticketState) pathsAllowed(paths []string) bool {
	req := caveat.Request{Paths: paths}
	for _, c := range st.paths {
		if c.Evaluate(&req, time.Time{}, 0) != nil {
			return false
		}
	}
	return true
}
