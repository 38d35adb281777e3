package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// outgoing is what the transport reads of a message the policy sends to
// the server. The policy has refused every message whose members the
// transport and the server could read apart.
type outgoing struct {
	msg         []byte
	method      string
	id          json.RawMessage // a request's id; nil otherwise
	key         idKey
	response    bool            // the agent's answer to a request of the server's
	metaVersion string          // params._meta's protocol version, if any
	name        *string         // params.name or params.uri, for Mcp-Name
	initVersion string          // an initialize's params.protocolVersion
	cancelID    json.RawMessage // a cancellation's params.requestId
}

func readOutgoing(msg []byte) (*outgoing, error) {
	m, err := parseMessage(trimJSON(msg), false)
	if err != nil {
		return nil, err
	}
	o := &outgoing{msg: msg, method: m.method, response: !m.hasMethod}
	if m.isRequest() {
		o.id, o.key = m.id, m.key
	}
	params, _ := memberObject(m.fields["params"], false)
	meta, _ := memberObject(params["_meta"], false)
	decodeString(meta[protocolVersionMeta], &o.metaVersion)
	decodeString(params["protocolVersion"], &o.initVersion)
	o.cancelID = params["requestId"]
	field := "name"
	if o.method == "resources/read" {
		field = "uri"
	}
	var name string
	if decodeString(params[field], &name) {
		o.name = &name
	}
	return o, nil
}

// route is how one message is sent: under which revision, in which
// session, and whether it is sent at all.
type route struct {
	version, session string
	stateless        bool
}

// errVersion answers a request under a revision the guard does not speak
// to an HTTP server.
type errVersion struct{ asked string }

func (e *errVersion) Error() string {
	if e.asked == "" {
		return "mcp: the guard speaks Streamable HTTP to the server in protocol " + ProtocolSessions + " (after an initialize) or " +
			ProtocolStateless + " (stated in each request's _meta); this request states none and no initialize came first"
	}
	return fmt.Sprintf("mcp: the guard speaks Streamable HTTP to the server in protocol %s or %s, not %q", ProtocolSessions, ProtocolStateless, e.asked)
}

func (h *httpSide) routeOf(o *outgoing) (route, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	legacy := route{version: h.version, session: h.session}
	switch {
	case o.method == "initialize":
		if o.initVersion != ProtocolSessions {
			return route{}, &errVersion{o.initVersion}
		}
		h.initMsg = bytes.Clone(o.msg)
		return route{}, nil // no session yet, no revision header yet
	case o.method == "notifications/initialized":
		h.initDone = bytes.Clone(o.msg)
		return legacy, nil
	case o.metaVersion == ProtocolStateless:
		return route{version: ProtocolStateless, stateless: true}, nil
	case o.metaVersion != "" && o.metaVersion != h.version:
		return route{}, &errVersion{o.metaVersion}
	case h.version == "" && !o.response:
		return route{}, &errVersion{}
	}
	return legacy, nil
}

// versionError is the answer to a request under a revision the guard does
// not speak: UnsupportedProtocolVersionError (2026-07-28, -32022), with the
// revisions it does.
func versionError(id json.RawMessage, msg string) []byte {
	type data struct {
		Supported []string `json:"supported"`
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    data   `json:"data"`
	}
	return marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{codeUnsupportedVersion, msg, data{[]string{ProtocolStateless, ProtocolSessions}}}})
}
