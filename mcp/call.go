package mcp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/verify"
)

// RefusalPrefix starts the text of the result a refused call gets.
const RefusalPrefix = "refused by ticket: "

// protocolVersionMeta is the per-request _meta key of protocol versions
// from 2026-07-28 on (SEP-2575), whose results carry a resultType.
const protocolVersionMeta = "io.modelcontextprotocol/protocolVersion"

// verdict is what the proxy does with a tools/call.
type verdict struct {
	forward bool
	answer  []byte // the response to the agent when not forwarded
}

// checkCall decides one tools/call request from the agent. An allowed call
// is forwarded; anything else is answered here and never reaches the
// server: a malformed call with a JSON-RPC error (no receipt: it is not a
// decision on the ticket), a refused one with an isError result naming
// every refusal, and one whose decision could not be recorded with an
// internal error.
func (p *Proxy) checkCall(st *ticketState, m *message) verdict {
	params, err := strictObject(m.fields["params"])
	if err != nil || !utf8.Valid(m.fields["params"]) {
		return p.malformed(m, "params must be a JSON object of valid UTF-8 without duplicate names")
	}
	var name string
	if raw, ok := params["name"]; !ok || len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &name) != nil {
		return p.malformed(m, "params.name must be a string")
	}
	args := map[string]json.RawMessage{}
	if raw, ok := present(params, "arguments"); ok {
		if args, err = strictObject(raw); err != nil {
			return p.malformed(m, "params.arguments must be a JSON object without duplicate names")
		}
	}
	paths, urls, err := p.cfg.Profile.subjects(name, args)
	if err != nil {
		return p.malformed(m, fmt.Sprintf("tool %s: %v", name, strings.TrimPrefix(err.Error(), "mcp: ")))
	}
	now := p.cfg.Now()
	req := &caveat.Request{
		Tool:     p.qualify(name),
		Op:       "invoke",
		Paths:    withResolved(paths, p.cfg.Dir),
		URLs:     urls,
		Audience: p.cfg.Audience,
	}
	if len(req.Paths) == 0 {
		req.Paths = nil
	}
	if st.bound {
		req.Holder = p.prove(st, name, now)
	}
	d, err := p.guard.Check(st.ticket, req, now)
	if err != nil {
		p.log.Printf("tools/call %s not forwarded: %v", name, err)
		return verdict{answer: errorResponse(m.id, codeInternalError,
			"mcp: the decision could not be recorded durably, so the call was not forwarded: "+err.Error())}
	}
	if d.Allowed {
		return verdict{forward: true}
	}
	text := RefusalPrefix + refusalText(d.Refusals)
	p.log.Printf("tools/call %s: %s", name, text)
	return verdict{answer: refusalResponse(m.id, text, modern(params))}
}

func (p *Proxy) malformed(m *message, why string) verdict {
	p.log.Printf("tools/call not forwarded: %s", why)
	return verdict{answer: errorResponse(m.id, codeInvalidParams, "mcp: "+why)}
}

// prove makes the DPoP proof of a bound ticket's holder for one call:
// htm POST, htu mcp://SERVER/TOOL, ath of the ticket's text, iat now and a
// random jti. A proof that cannot be made is left empty, and the verifier
// refuses the call.
func (p *Proxy) prove(st *ticketState, tool string, now time.Time) *caveat.HolderProof {
	server := p.cfg.ServerName
	if server == "" {
		server = "server"
	}
	htu := "mcp://" + server + "/" + url.PathEscape(tool)
	proof, err := dpop.Make(p.cfg.Holder, "POST", htu, dpop.MakeOptions{AccessToken: st.text, IssuedAt: now})
	if err != nil {
		p.log.Printf("tools/call %s: no DPoP proof: %v", tool, err)
	}
	return &caveat.HolderProof{Proof: proof, Method: "POST", URI: htu}
}

// refusalText joins the refusals as verify.Refusal.String renders them.
func refusalText(rs []verify.Refusal) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// refusalResponse renders the result a refused call gets: a tool result
// with isError set and one text block, so the model reads why.
func refusalResponse(id json.RawMessage, text string, modern bool) []byte {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content    []content `json:"content"`
		IsError    bool      `json:"isError"`
		ResultType string    `json:"resultType,omitempty"`
	}
	r := result{Content: []content{{"text", text}}, IsError: true}
	if modern {
		r.ResultType = "complete"
	}
	return marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  result          `json:"result"`
	}{"2.0", id, r})
}

// modern reports whether a request states a protocol version of
// 2026-07-28 or later in its _meta.
func modern(params map[string]json.RawMessage) bool {
	var meta map[string]json.RawMessage
	if raw, ok := params["_meta"]; !ok || json.Unmarshal(raw, &meta) != nil {
		return false
	}
	var v string
	return json.Unmarshal(meta[protocolVersionMeta], &v) == nil && v >= "2026-07-28"
}
