package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/key"
)

const proxyUsage = `
usage: tickettool proxy --listen ADDR --upstream URL --key PATH
                        [--public-url URL] [--trusted-proxy CIDR]...
                        [--routes FILE] [--bearer] [--no-nonce]
                        [--nonce-key PATH] [--upstream-auth-file PATH]
                        [--header-timeout DURATION] [--store LOCATION]
                        [--receipts LOG --receipt-key PATH] [policy flags]

A reverse proxy that puts tickets in front of an HTTP API: every request
is checked as spec/HTTP.md says (a bound ticket in Authorization: DPoP
with a DPoP proof and the proxy's nonce; with --bearer also an unbound
ticket in Authorization: Bearer), and only an allowed one is forwarded
to --upstream, without its Authorization, DPoP and Ticket-Discharge
headers: the ticket never reaches the upstream. A refused request gets
the RFC 6750/9449 challenge and a JSON body saying which block and
caveat refused it. Bodies stream both ways (a JSON body, which args
caveats and approvals bind, is read first, at most 1 MiB).

A request's tool is the name --routes gives its route, else its method;
its op is the method in lower case; its path and URL are the public ones
(--public-url, by default http://ADDR of --listen, followed by the
request's path); aud caveats must name --aud, by default the public
URL's host. FILE has one route per line, a net/http pattern and a
tool name, '#' starting a comment:

  POST /v1/orders/{id}   orders.update
  GET  /v1/orders/       orders.read

The Host header is never read for the public URL, and X-Forwarded-Proto,
X-Forwarded-Host and Forwarded only from --trusted-proxy addresses (CIDR,
repeatable). Nonces are stateless: proxies that clients
reach interchangeably share them with --nonce-key PATH, an HMAC key
file (keygen --alg hmac); without it each proxy draws its own. Budgets
are reserved when a request is forwarded and spent when the upstream has
answered (whatever the status), given back only when the upstream could
not be reached. Every proxy on one --store shares budgets and used proofs,
so a proof is accepted once by all of them.

Upstream credentials come from --upstream-auth-file PATH (its first line
is sent as the upstream Authorization header) or the environment
variable TICKETTOOL_UPSTREAM_AUTHORIZATION, never from the command line.

One line per decision goes to standard error. SIGINT or SIGTERM stops
accepting requests, lets those in flight finish and settles them, and
exits 0. Unless GOGC is set, the proxy runs with GOGC=400 (its heap is
small and collected often).

` + policyUsage + `
` + storeUsage + `
Example:
  tickettool proxy --listen 127.0.0.1:8080 --upstream http://127.0.0.1:9000 \
      --key root.key.pub --routes routes.txt --store memory
`

func runProxy(e *env, args []string) error {
	fs := newFlags(e, "proxy", proxyUsage)
	listen := fs.String("listen", "", "`ADDR` to listen on (HOST:PORT)")
	upstream := fs.String("upstream", "", "`URL` of the API to forward allowed requests to")
	keyPath := fs.String("key", "", "`PATH` of the HMAC secret or the Ed25519 public key")
	publicURL := fs.String("public-url", "", "the proxy's public base `URL`, as clients address it (default http://ADDR)")
	var trusted stringList
	fs.Var(&trusted, "trusted-proxy", "`CIDR` of a proxy whose X-Forwarded-* and Forwarded headers name the public origin (repeatable)")
	routes := fs.String("routes", "", "`FILE` of routes: a net/http pattern and a tool name per line")
	bearer := fs.Bool("bearer", false, "accept unbound tickets with the Bearer scheme")
	noNonce := fs.Bool("no-nonce", false, "do not require server nonces in DPoP proofs")
	nonceKey := fs.String("nonce-key", "", "`PATH` of an HMAC key file the proxies of a fleet share for their nonces")
	authFile := fs.String("upstream-auth-file", "", "`PATH` of a file whose first line is the upstream Authorization header")
	headerTimeout := fs.Duration("header-timeout", proxyHeaderTimeout, "how long a client may take to send its request headers (`DURATION`)")
	receipts := fs.String("receipts", "", "receipt `LOG` to append to")
	receiptKey := fs.String("receipt-key", "", "`PATH` of the secret receipt key")
	pol := policyFlags(fs)
	location := storeFlag(fs)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageErr("proxy takes no arguments, got %s", quoteArg(pos[0]))
	case *listen == "" || *upstream == "" || *keyPath == "":
		return usageErr("proxy needs --listen, --upstream and --key")
	case (*receipts == "") != (*receiptKey == ""):
		return usageErr("--receipts and --receipt-key go together")
	case *headerTimeout <= 0:
		return usageErr("--header-timeout must be positive")
	}
	cfg, err := proxyConfigOf(*upstream, *authFile, *listen, *publicURL, trusted, *routes, *nonceKey)
	if err != nil {
		return err
	}
	_, keys, err := keysOf(*keyPath)
	if err != nil {
		return err
	}
	if cfg.opts.Policy, err = pol.options(); err != nil {
		return err
	}
	cfg.opts.Keys, cfg.opts.Audience, cfg.opts.AllowBearer, cfg.opts.NoNonce = keys, pol.aud, *bearer, *noNonce
	if *bearer && pol.requireHolder {
		return usageErr("--bearer and --require-holder contradict each other")
	}
	openCtx, cancelOpen := storeContext()
	st, _, err := openStore(openCtx, *location)
	cancelOpen()
	if err != nil {
		return err
	}
	defer st.Close()
	cfg.opts.Store = st
	if *receipts != "" {
		if cfg.opts.Receipts, err = openReceipts(*receipts, *receiptKey); err != nil {
			return err
		}
		defer cfg.opts.Receipts.Close()
	}
	stderr := &lockedWriter{w: e.stderr}
	logw := &prefixWriter{w: stderr, prefix: "tickettool proxy: "}
	decisions := newBatchedLog(stderr)
	defer decisions.Close()
	cfg.opts.Log = &prefixWriter{w: decisions, prefix: "tickettool proxy: "}
	h, err := newProxyHandler(cfg)
	if err != nil { // the options the flags gave: say what, without a package's prefix
		msg := err.Error()
		for _, p := range []string{"dpophttp: ", "guard: "} {
			msg = strings.TrimPrefix(msg, p)
		}
		return fail(exitUsage, errors.New(msg))
	}
	if os.Getenv("GOGC") == "" {
		// A proxy's live heap is small and its requests allocate fast, so
		// the default collects so often that collecting costs more than
		// the checks: a quarter of the CPU of a request, measured.
		debug.SetGCPercent(proxyGCPercent)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(exitRefused, fmt.Errorf("listening on %s: %w", *listen, err))
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: *headerTimeout, IdleTimeout: proxyIdleTimeout,
		MaxHeaderBytes: proxyMaxHeaderBytes}
	fmt.Fprintf(logw, "listening on %s, forwarding to %s\n", ln.Addr(), cfg.upstream.Redacted())
	return serveProxy(e, srv, ln, decisions)
}

// serveProxy serves until SIGINT or SIGTERM, then stops accepting, waits
// for the requests in flight (each settles as its handler returns) and
// returns.
func serveProxy(e *env, srv *http.Server, ln net.Listener, decisions *batchedLog) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fail(exitRefused, err)
	case s := <-sigs:
		ctx, cancel := context.WithTimeout(context.Background(), proxyShutdownTimeout)
		defer cancel()
		err := srv.Shutdown(ctx)
		<-done
		name := sigName(s)
		if err != nil {
			return fail(exitRefused, fmt.Errorf("stopped by %s; requests still in flight after %v were cut off: %w", name, proxyShutdownTimeout, err))
		}
		decisions.Close() // every decision's line before the last one
		fmt.Fprintf(e.stderr, "tickettool proxy: stopped by %s; every request in flight was settled\n", name)
		return nil
	}
}

// proxyConfig is what the proxy handler is made of.
type proxyConfig struct {
	opts         dpophttp.Options
	upstream     *url.URL
	upstreamAuth string
}

// proxyConfigOf reads and checks the flags that shape the proxy.
func proxyConfigOf(upstream, authFile, listen, public string, trusted []string, routes, nonceKey string) (*proxyConfig, error) {
	up, err := url.Parse(upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" || up.RawQuery != "" || up.Fragment != "" {
		return nil, usageErr("--upstream %s: want an http or https URL with a host, without query or fragment", quoteArg(upstream))
	}
	cfg := &proxyConfig{upstream: up}
	if public == "" {
		host, _, err := net.SplitHostPort(listen)
		if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
			return nil, usageErr("--listen %s names no host clients use: pass --public-url", quoteArg(listen))
		}
		public = "http://" + listen
	}
	cfg.opts.PublicURL = public
	for _, c := range trusted {
		p, err := netip.ParsePrefix(c)
		if err != nil {
			a, aerr := netip.ParseAddr(c)
			if aerr != nil {
				return nil, usageErr("--trusted-proxy %s: want a CIDR (10.0.0.0/8) or an address", quoteArg(c))
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		cfg.opts.TrustedProxies = append(cfg.opts.TrustedProxies, p.Masked())
	}
	if routes != "" {
		if cfg.opts.Routes, err = readRoutes(routes); err != nil {
			return nil, err
		}
	}
	if nonceKey != "" {
		k, err := readSigningKey(nonceKey, "--nonce-key", "the nonces")
		if err != nil {
			return nil, err
		}
		if k.Alg() != key.HMACSHA256 {
			return nil, usageErr("--nonce-key %s is not an HMAC key: make one with keygen --alg hmac", quoteArg(nonceKey))
		}
		sum := sha256.Sum256([]byte("tickettool proxy nonce key\x00" + k.SecretText()))
		cfg.opts.NonceKey = sum[:]
	}
	if cfg.upstreamAuth, err = upstreamAuth(authFile); err != nil {
		return nil, err
	}
	return cfg, nil
}

// readRoutes reads a route file: "PATTERN TOOL" per line.
func readRoutes(path string) ([]dpophttp.Route, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fail(exitUsage, fmt.Errorf("--routes: %w", err))
	}
	var out []dpophttp.Route
	for i, line := range strings.Split(string(b), "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, usageErr("--routes %s line %d: want a pattern and a tool name", quoteArg(path), i+1)
		}
		out = append(out, dpophttp.Route{Pattern: strings.Join(f[:len(f)-1], " "), Tool: f[len(f)-1]})
	}
	return out, nil
}

// upstreamAuth reads the upstream credentials from the file or the
// environment (never both, never the command line).
func upstreamAuth(path string) (string, error) {
	env := os.Getenv(upstreamAuthEnv)
	if path == "" {
		return strings.TrimSpace(env), nil
	}
	if env != "" {
		return "", usageErr("--upstream-auth-file and %s both set: use one", upstreamAuthEnv)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fail(exitUsage, fmt.Errorf("--upstream-auth-file: %w", err))
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "", usageErr("--upstream-auth-file %s: the first line is empty", quoteArg(path))
	}
	return line, nil
}

// prefixWriter starts every write (one log line) with prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	if _, err := p.w.Write(append([]byte(p.prefix), b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}

var errUnreachable = errors.New("the upstream could not be reached")
