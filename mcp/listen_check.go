package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// codeHeaderMismatch is HeaderMismatch (2026-07-28,
// basic/transports/streamable-http, Server Validation).
const codeHeaderMismatch = -32020

// knownVersions are the revisions whose MCP-Protocol-Version a listener
// accepts from a client: the ones the guard speaks to an HTTP server, and
// the earlier Streamable HTTP ones a stdio server may settle on in an
// initialize.
var knownVersions = []string{"2025-03-26", "2025-06-18", ProtocolSessions, ProtocolStateless}

// origins is what a listener accepts in Origin and Host: the DNS
// rebinding defence of the Streamable HTTP transport (basic/transports,
// Security Warning: "Servers MUST validate the Origin header on all
// incoming connections"). A page on another site that a browser lets
// reach the listener (a rebound name resolving to 127.0.0.1) sends its own
// Origin, and its Host is the rebound name: both are refused.
type origins struct {
	allowed []string // scheme://host[:port], lower case
	hosts   []string // host[:port] values Host may take, lower case; nil: any
}

// newOrigins derives the accepted origins from the listener's address:
// for a loopback address, http://127.0.0.1:PORT, http://localhost:PORT
// and http://[::1]:PORT (as clients on this machine name it) and only
// those hosts in Host; for any other address, its own origin. extra are
// further origins (scheme://host[:port]), whose hosts Host may also name.
func newOrigins(addr string, extra []string) (*origins, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("mcp: listen address %q: %v", addr, err)
	}
	o := &origins{}
	names := []string{host}
	if isLoopback(host) {
		names = []string{"127.0.0.1", "localhost", "[::1]"}
	} else if strings.Contains(host, ":") {
		names = []string{"[" + host + "]"}
	}
	for _, n := range names {
		o.allowed = append(o.allowed, "http://"+n+":"+port)
		o.hosts = append(o.hosts, n+":"+port)
	}
	if !isLoopback(host) {
		o.hosts = nil // clients name a public listener as they please
	}
	for _, e := range extra {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			return nil, fmt.Errorf("mcp: allowed origin %q: want scheme://host[:port]", e)
		}
		o.allowed = append(o.allowed, strings.ToLower(u.Scheme+"://"+u.Host))
		if o.hosts != nil {
			o.hosts = append(o.hosts, strings.ToLower(u.Host))
		}
	}
	return o, nil
}

// isLoopback reports whether host (a listen address's host) is a loopback
// address or localhost. An empty host listens on every interface.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// IsLoopback reports whether a listen address (HOST:PORT) listens only on
// a loopback interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopback(host)
}

// check refuses a request whose Origin is present and not accepted, or
// whose Host is not one a client on this machine uses.
func (o *origins) check(r *http.Request) string {
	if vs := r.Header.Values("Origin"); len(vs) > 0 {
		if len(vs) > 1 || !slices.Contains(o.allowed, strings.ToLower(vs[0])) {
			return "the request's Origin is not one this listener accepts"
		}
	}
	if o.hosts != nil && !slices.Contains(o.hosts, strings.ToLower(r.Host)) {
		return "the request's Host is not one this listener accepts"
	}
	return ""
}

// statelessHeaders checks the standard headers of a 2026-07-28 message
// against its body (basic/transports/streamable-http, Server Validation):
// MCP-Protocol-Version must equal _meta's version, Mcp-Method the method,
// and Mcp-Name the tool or prompt name or the resource URI, decoded from
// its =?base64?…?= form. It returns why they disagree, "" when they agree.
func statelessHeaders(h http.Header, in *incoming) string {
	hv := h.Values("Mcp-Protocol-Version")
	switch {
	case len(hv) != 1:
		return "MCP-Protocol-Version must be sent once"
	case hv[0] != in.metaVersion:
		return fmt.Sprintf("MCP-Protocol-Version header %q does not match the body's _meta version %q", hv[0], in.metaVersion)
	}
	if in.method == "" {
		return ""
	}
	if mv := h.Values("Mcp-Method"); len(mv) != 1 || mv[0] != in.method {
		return fmt.Sprintf("Mcp-Method header does not match the body's method %q", in.method)
	}
	nv := h.Values("Mcp-Name")
	if in.name == nil {
		if len(nv) != 0 {
			return "Mcp-Name header sent for a request that names nothing"
		}
		return ""
	}
	if len(nv) != 1 {
		return fmt.Sprintf("Mcp-Name header missing for %s", in.method)
	}
	if v, ok := decodeHeaderValue(nv[0]); !ok || v != *in.name {
		return "Mcp-Name header does not match the body"
	}
	return ""
}

// decodeHeaderValue reads a header value in the transport's encoding:
// =?base64?B64?= is the base64 of the value, anything else the value.
func decodeHeaderValue(s string) (string, bool) {
	const pre, suf = "=?base64?", "?="
	if !strings.HasPrefix(s, pre) || !strings.HasSuffix(s, suf) || len(s) < len(pre)+len(suf) {
		return s, true
	}
	b, err := base64.StdEncoding.DecodeString(s[len(pre) : len(s)-len(suf)])
	return string(b), err == nil
}

// httpRefusal is an HTTP status with a JSON-RPC error body.
type httpRefusal struct {
	status int
	code   int
	msg    string
	data   any
}

func (e *httpRefusal) write(w http.ResponseWriter, id json.RawMessage) {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b := marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{e.code, "mcp: " + e.msg, e.data}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	w.Write(b)
}

func badRequest(code int, format string, args ...any) *httpRefusal {
	return &httpRefusal{status: http.StatusBadRequest, code: code, msg: fmt.Sprintf(format, args...)}
}

// learnParams keeps the x-mcp-header annotations of the tools a tools/list
// answer (as the policy passed it on) shows, to check the Mcp-Param
// headers of the calls that follow.
func (ln *lane) learnParams(result json.RawMessage) {
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	ln.mu.Lock()
	defer ln.mu.Unlock()
	for _, t := range r.Tools {
		if ps, ok := schemaParams(t.InputSchema); ok && len(ps) > 0 {
			if ln.params == nil {
				ln.params = map[string][]paramHeader{}
			}
			ln.params[t.Name] = ps
		}
	}
}

// checkParams checks a 2026-07-28 tools/call's Mcp-Param headers against
// its arguments (basic/transports/streamable-http, "Server Behavior for
// Custom Headers"): for each argument the tool's annotations name that is
// present with a primitive value, the header must be sent and equal it,
// decoded (an integer compared as a number). A tool the lane has not seen
// in a tools/list answer has no annotations to check. It returns why they
// disagree, "" when they agree.
func (ln *lane) checkParams(h http.Header, in *incoming) string {
	if in.method != "tools/call" || in.name == nil || in.metaVersion == "" {
		return ""
	}
	ln.mu.Lock()
	ps := ln.params[*in.name]
	ln.mu.Unlock()
	for _, p := range ps {
		cur := in.params["arguments"]
		for _, key := range p.path {
			obj, err := strictObject(cur)
			if err != nil {
				cur = nil
				break
			}
			cur = obj[key]
		}
		want, ok := primitive(cur)
		if !ok {
			continue
		}
		name := "Mcp-Param-" + p.name
		vs := h.Values(name)
		if len(vs) != 1 {
			return name + " header missing for an argument the tool annotates"
		}
		got, ok := decodeHeaderValue(vs[0])
		if !ok || !sameParam(got, want, cur) {
			return name + " header does not match the body"
		}
	}
	return ""
}

// sameParam compares a header's decoded value with the argument's: an
// integer numerically (42.0 is 42), anything else exactly.
func sameParam(got, want string, raw json.RawMessage) bool {
	if got == want {
		return true
	}
	if len(raw) == 0 || raw[0] == '"' || string(raw) == "true" || string(raw) == "false" {
		return false
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && g == w
}
