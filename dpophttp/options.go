package dpophttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Options configure a [Middleware]. Keys and PublicURL are required.
type Options struct {
	// Keys verify the tickets; Policy is the verifier's own policy
	// (RequireHolder, RequireExpiry, the DPoP algorithms and window…),
	// which no ticket can weaken.
	Keys   *token.Keyring
	Policy verify.Options
	// Store keeps budgets, used DPoP proofs and revocations; every
	// middleware (every process, every machine) on one store shares them,
	// so a proof is accepted once by the whole fleet. nil means a
	// guard.MemoryStore that lives as long as the Middleware.
	Store guard.Store
	// Receipts, when set, receives one durable receipt per decision and
	// per settlement (the guard's), and one per refusal the middleware
	// makes before the guard (a malformed request).
	Receipts *chain.Log
	// Hold is how long an allowed request's budgets stay reserved while
	// its handler runs; 0 means DefaultHold.
	Hold time.Duration

	// PublicURL is the server's public base URL, scheme://host[:port]
	// and an optional path prefix, as clients address it: a proof's htu
	// must be PublicURL followed by the request's path. Host,
	// X-Forwarded-* and Forwarded are never read, unless the request
	// comes from a TrustedProxies address.
	PublicURL string
	// TrustedProxies are the addresses (of Request.RemoteAddr) whose
	// X-Forwarded-Proto and X-Forwarded-Host, or Forwarded proto= and
	// host=, name the public origin; the last value of each is used (the
	// one the trusted proxy itself added).
	TrustedProxies []netip.Prefix
	// Audience is the server's name for aud caveats; "" means
	// PublicURL's host.
	Audience string

	// AllowBearer accepts an unbound ticket under the Bearer scheme
	// (never with Policy.RequireHolder). A bound ticket under Bearer is
	// always refused (RFC 9449 §7.2).
	AllowBearer bool

	// NoNonce turns server nonces (RFC 9449 §8–§9) off. They are on by
	// default: a proof must carry a nonce the server issued, in the
	// current or the previous window.
	NoNonce bool
	// NonceKey is the MAC key of the stateless nonces, at least
	// MinNonceKeyBytes; every server of a fleet that clients reach
	// interchangeably must share it. nil means a random key for this
	// Middleware.
	NonceKey []byte
	// NonceWindow is the length of a nonce window; 0 means
	// DefaultNonceWindow.
	NonceWindow time.Duration

	// Routes name requests for the tools caveat (see [Route]).
	Routes []Route
	// Map turns a request into what the ticket is checked against; nil
	// means [Middleware.DefaultMap]. Holder is filled in after Map.
	Map func(r *http.Request, body []byte) (*caveat.Request, error)
	// MaxBodyBytes bounds a body the middleware reads; 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// BodyTimeout bounds the time to read such a body (through
	// http.ResponseController, where the server supports read
	// deadlines); 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration

	// ResourceMetadata, when set, is the URL of the RFC 9728 metadata
	// document, named in every challenge (resource_metadata).
	ResourceMetadata string
	// ErrorHandler answers a refused request; nil means WriteError.
	ErrorHandler func(w http.ResponseWriter, r *http.Request, e *Error)
	// Log, when set, receives one line per decision, control characters
	// escaped.
	Log io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// StoreTimeout bounds one admission or settlement; 0 means
	// DefaultStoreTimeout.
	StoreTimeout time.Duration
}

// Route names the requests that match a net/http pattern (as
// http.ServeMux reads it, e.g. "POST /v1/orders/{id}") for the tools
// caveat.
type Route struct {
	Pattern string
	Tool    string // a tool name as the tools caveat takes it
}

// Middleware checks tickets on HTTP requests. It is safe for concurrent
// use.
type Middleware struct {
	opt    Options
	guard  *guard.Guard
	public *url.URL
	routes *http.ServeMux
	tools  map[string]string // pattern to tool
	nonce  *nonces
	algs   string
	logMu  sync.Mutex // one line at a time on Options.Log
	cache  preparedCache
}

// New checks opts and returns a middleware.
func New(opts Options) (*Middleware, error) {
	if opts.Keys == nil {
		return nil, errors.New("dpophttp: options need a keyring")
	}
	pub, err := parsePublic(opts.PublicURL)
	if err != nil {
		return nil, err
	}
	if opts.Audience == "" {
		opts.Audience = pub.Hostname()
	}
	if opts.AllowBearer && opts.Policy.RequireHolder {
		return nil, errors.New("dpophttp: AllowBearer and Policy.RequireHolder contradict each other")
	}
	if opts.Hold <= 0 {
		opts.Hold = DefaultHold
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.StoreTimeout <= 0 {
		opts.StoreTimeout = DefaultStoreTimeout
	}
	if opts.NonceWindow <= 0 {
		opts.NonceWindow = DefaultNonceWindow
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ErrorHandler == nil {
		opts.ErrorHandler = WriteError
	}
	g, err := guard.New(guard.Config{Keys: opts.Keys, Options: opts.Policy, Store: opts.Store,
		Receipts: opts.Receipts, Hold: opts.Hold})
	if err != nil {
		return nil, err // guard prefixes its errors
	}
	m := &Middleware{opt: opts, guard: g, public: pub, algs: algsOf(opts.Policy)}
	m.cache.limit = MaxPreparedBytes
	if err := m.compileRoutes(); err != nil {
		return nil, err
	}
	if !opts.NoNonce {
		k := opts.NonceKey
		if k == nil {
			k = make([]byte, MinNonceKeyBytes)
			if _, err := io.ReadFull(randsrc.Reader(), k); err != nil {
				return nil, fmt.Errorf("dpophttp: drawing a nonce key: %w", err)
			}
		}
		if len(k) < MinNonceKeyBytes {
			return nil, fmt.Errorf("dpophttp: nonce key of %d bytes: at least %d", len(k), MinNonceKeyBytes)
		}
		m.nonce = newNonces(k, pub.String(), opts.NonceWindow)
	}
	m.opt.NonceKey = nil // kept only in m.nonce
	return m, nil
}

// parsePublic checks the public base URL: http or https, a host, no
// user info, query or fragment; a trailing slash is dropped.
func parsePublic(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return nil, errors.New("dpophttp: options need a public URL")
	case err != nil:
		return nil, fmt.Errorf("dpophttp: public URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("dpophttp: public URL must be http or https")
	case u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return nil, errors.New("dpophttp: public URL must be scheme://host[:port][/prefix], without user info, query or fragment")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u, nil
}

// compileRoutes checks the route table and builds its matcher.
func (m *Middleware) compileRoutes() (err error) {
	if len(m.opt.Routes) == 0 {
		return nil
	}
	m.routes, m.tools = http.NewServeMux(), map[string]string{}
	defer func() { // ServeMux panics on a bad or conflicting pattern
		if r := recover(); r != nil {
			err = fmt.Errorf("dpophttp: route table: %v", r)
		}
	}()
	for _, rt := range m.opt.Routes {
		if _, err := caveat.NewTools(rt.Tool); err != nil {
			return fmt.Errorf("dpophttp: route %q: tool %q is not a tool name", rt.Pattern, rt.Tool)
		}
		m.routes.Handle(rt.Pattern, http.NotFoundHandler())
		m.tools[rt.Pattern] = rt.Tool
	}
	return nil
}

// algsOf is the algs parameter of the DPoP challenge: the policy's
// allow-list, or the algorithms package dpop accepts by default.
func algsOf(p verify.Options) string {
	var s []string
	for _, a := range p.DPoP.Algorithms {
		s = append(s, string(a))
	}
	if p.DPoP.Algorithms == nil {
		for _, a := range dpop.Algorithms() {
			s = append(s, string(a))
		}
	}
	return strings.Join(s, " ")
}
