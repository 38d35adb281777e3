package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// RefusalPrefix starts the text of the result a refused call gets.
const RefusalPrefix = "refused by ticket: "

// protocolVersionMeta is the per-request _meta key of protocol versions
// from 2026-07-28 on (SEP-2575), whose results carry a resultType.
const protocolVersionMeta = "io.modelcontextprotocol/protocolVersion"

// Call is a tools/call the pump parsed, waiting for the gate: its
// paths are resolved and checked only when no call that may change them
// is in flight.
type Call struct {
	m       *message
	line    []byte
	params  map[string]json.RawMessage
	name    string
	paths   []string
	urls    []string
	spec    ToolArgs
	args    []byte // params.arguments ("null" too), "{}" when absent
	digest  []byte // the args digest of args; nil when it has none
	known   bool   // the profile knows the tool
	refusal string // why the guard refuses the call as it stands; "" when it can be checked
	// requestState is the retry of a multi round-trip call's echo of the
	// server's state (see continuation); "" when none.
	requestState string
	cancelled    atomic.Bool // the agent cancelled it before it was checked
	// holder is the client's proof for the request that carried the call
	// (a proxy enforcing a client's ticket); nil otherwise.
	holder *caveat.HolderProof
	// discharges are the Ticket-Discharge headers of that request, tried
	// before any of Config.DischargeDir.
	discharges []string
	modernForm bool
	operation  string // the agent's operation key (OperationMeta), or ""
}

// readOnly reports whether the call cannot change the filesystem.
func (c *Call) readOnly() bool { return c.known && c.spec.ReadOnly }

// verdict is what the proxy does with a tools/call.
type verdict struct {
	forward  bool
	answer   []byte          // the response to the agent when not forwarded
	decision *guard.Decision // an allowed call's admission, to settle
}

// agentParams decodes the params of a request or notification from the
// agent: absent (nil), or an object whose member names are unique under
// case folding and none of which is a name the proxy reads in another case.
func agentParams(m *message) (map[string]json.RawMessage, error) {
	raw, ok := present(m.fields, "params")
	if !ok || !m.hasMethod {
		return nil, nil
	}
	params, err := memberObject(raw, true)
	if err != nil {
		return nil, errors.New("mcp: params must be a JSON object without duplicate names")
	}
	if err := checkAliases("params", params, paramsNames...); err != nil {
		return nil, err
	}
	return params, nil
}

// errArgsNames is the answer to a call whose arguments are not an object,
// or hold, in an object at any depth, two member names equal under case
// folding: the server may read either member as the other.
const errArgsNames = "params.arguments must be a JSON object in which no object, at any depth, " +
	"has two member names equal under case folding"

// parseCall reads a tools/call without deciding it. A call that is not a
// well-formed request (params or arguments not an object, a name that is
// not a string, a duplicate or look-alike member name, two names equal
// under case folding at any depth of the arguments) gets a JSON-RPC
// invalid-params answer and no receipt: it is not a decision on the
// ticket. A well-formed call the guard cannot check as it stands (a
// task-augmented call, a subject argument of the wrong type, a relative
// path the server would resolve where the guard cannot see) is parsed with
// its refusal, which decide records and answers as a tool result.
func (p *Proxy) parseCall(m *message, params map[string]json.RawMessage, line []byte) (*Call, []byte) {
	if params == nil || !utf8.Valid(m.fields["params"]) {
		return nil, p.malformed(m, "params must be a JSON object of valid UTF-8 without duplicate names")
	}
	// The line is the reader's buffer: the call outlives it in the queue.
	c := &Call{m: m, line: bytes.Clone(line), params: params, modernForm: modern(params)}
	if raw, ok := params["name"]; !ok || len(raw) == 0 || raw[0] != '"' || !decodeString(raw, &c.name) {
		return nil, p.malformed(m, "params.name must be a string")
	}
	args := map[string]json.RawMessage{}
	if raw, ok := present(params, "arguments"); ok {
		var err error
		if args, err = memberObject(raw, true); err != nil {
			return nil, p.malformed(m, errArgsNames)
		}
	}
	var err0 error
	c.args, c.digest = callArgs(params)
	if c.digest == nil && foldCollision(c.args) {
		return nil, p.malformed(m, errArgsNames)
	}
	json.Unmarshal(params["requestState"], &c.requestState)
	if c.operation, err0 = operationKey(params); err0 != nil {
		return nil, p.malformed(m, err0.Error())
	}
	c.spec, c.known = p.cfg.Profile.Tools[c.name]
	var err error
	c.paths, c.urls, err = p.cfg.Profile.subjects(c.name, args)
	var ae *aliasError
	switch {
	case errors.As(err, &ae):
		return nil, p.malformed(m, fmt.Sprintf("tool %q: %v", c.name, strings.TrimPrefix(err.Error(), "mcp: ")))
	case err != nil:
		c.refusal = fmt.Sprintf("tool %q: %v", c.name, strings.TrimPrefix(err.Error(), "mcp: "))
	}
	if _, ok := present(params, "task"); ok {
		c.refusal = fmt.Sprintf("tool %q: a task-augmented call is not supported: the guard cannot tell when a task runs; call the tool without a task", c.name)
	}
	if p.cfg.Profile.AbsolutePaths && c.refusal == "" {
		for _, path := range c.paths {
			if !filepath.IsAbs(path) {
				c.refusal = fmt.Sprintf("tool %q: path %q is relative: the %s server resolves it against "+
					"its allowed directories, which the guard cannot see; give an absolute path", c.name, path, p.cfg.Profile.Name)
				break
			}
		}
	}
	return c, nil
}

// decide checks one call once the gate lets it through. An allowed call is
// forwarded; anything else is answered here and never reaches the server:
// a refused one (by the ticket, or by the guard for a call it cannot
// check as it stands: see parseCall, and a path that matches several
// entries by NFC form) with an isError result naming every refusal, after
// its receipt, and one whose decision could not be recorded with an
// internal error.
func (p *Proxy) decide(st *ticketState, c *Call) verdict {
	now := p.cfg.Now()
	req := &caveat.Request{
		Tool:     p.qualify(c.name),
		Op:       "invoke",
		Paths:    c.paths,
		URLs:     c.urls,
		Audience: p.cfg.Audience,
		Args:     c.digest,
		Holder:   c.holder,
	}
	ctx, cancel := context.WithTimeout(context.Background(), StoreTimeout)
	defer cancel()
	if c.refusal == "" {
		paths, err := withResolved(c.paths, p.cfg.Dir)
		if err != nil {
			c.refusal = fmt.Sprintf("tool %q: %s", c.name, strings.TrimPrefix(err.Error(), "mcp: "))
		}
		req.Paths = paths
	}
	if c.refusal != "" {
		d, err := p.guard.RefusePrepared(ctx, st.prepared, req, now, c.refusal)
		if err != nil {
			return p.unrecorded(c, err)
		}
		text := RefusalPrefix + refusalText(d.Refusals)
		p.log.Printf("tools/call %q: %s", c.name, text)
		return verdict{answer: refusalResponse(c.m.id, text, c.modernForm)}
	}
	if c.spec.ListsDirectories && len(st.paths) > 0 {
		// The answer is cut down to the ticket's paths (filterDirs), so
		// the call is checked as touching the narrowest of them.
		req.Paths = st.paths[len(st.paths)-1].List
	}
	if len(req.Paths) == 0 {
		req.Paths = nil
	}
	var skipped skipCounts
	req.Discharges = c.discharges
	if len(st.approvals) > 0 && p.cfg.DischargeDir != "" {
		var pooled []string
		pooled, skipped = p.poolDischarges(st, req, now)
		req.Discharges = append(slices.Clip(c.discharges), pooled...)
		if len(req.Discharges) > verify.MaxDischarges {
			req.Discharges = req.Discharges[:verify.MaxDischarges]
		}
	}
	d, err := p.guard.VerifyPreparedCall(ctx, st.prepared, req, now, guard.CallOptions{Operation: c.operation})
	if err != nil {
		return p.unrecorded(c, err)
	}
	if d.Replayed {
		p.log.Printf("tools/call %q: operation %q replays request %s: the server is not called, nothing is charged", c.name, c.operation, d.Request)
		return verdict{answer: replayResponse(c.m.id, d.Result)}
	}
	if d.Allowed {
		return verdict{forward: true, decision: &d}
	}
	text := RefusalPrefix + refusalText(d.Refusals)
	if ask := p.approvalText(st, &d.Decision, req.Tool, c.args, c.digest); ask != "" {
		text += "; " + string(escapeControls(nil, []byte(ask)))
	}
	if note := skipped.String(); note != "" {
		text += "; " + note
	}
	p.log.Printf("tools/call %q: %s", c.name, text)
	return verdict{answer: refusalResponse(c.m.id, text, c.modernForm)}
}

// unrecorded is the answer to a call whose decision could not be recorded.
func (p *Proxy) unrecorded(c *Call, err error) verdict {
	p.log.Printf("tools/call %q not forwarded: %v", c.name, err)
	return verdict{answer: errorResponse(c.m.id, codeInternalError,
		"mcp: the decision could not be recorded durably, so the call was not forwarded: "+err.Error())}
}

func (p *Proxy) malformed(m *message, why string) []byte {
	p.log.Printf("tools/call not forwarded: %s", why)
	return errorResponse(m.id, codeInvalidParams, "mcp: "+why)
}

// refusalText joins the refusals as verify.Refusal.String renders them, on
// one line: a control character any of them holds is escaped.
func refusalText(rs []verify.Refusal) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return string(escapeControls(nil, []byte(strings.Join(parts, "; "))))
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
	raw, ok := params["_meta"]
	if !ok {
		return false
	}
	meta, err := memberObject(raw, false)
	if err != nil {
		return false
	}
	var v string
	return decodeString(meta[protocolVersionMeta], &v) && v >= "2026-07-28"
}

// settle ends an allowed call's reservation once its outcome is known:
// captured when the server answered with a result (an isError result too:
// the call ran), or with an error that does not show the call never ran;
// released when the error shows it never ran (parse error, invalid
// request, method not found, invalid params) or it was never forwarded.
// A call the server never answers keeps its reservation until its hold
// ends (Config.Hold), then counts as spent. Every settlement leaves a
// receipt; a settlement that fails is logged and the reservation ends with
// its hold, captured.
func (p *Proxy) settle(d *guard.Decision, o guard.Outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), StoreTimeout)
	defer cancel()
	if err := p.guard.Settle(ctx, d, o, p.cfg.Now()); err != nil {
		p.log.Printf("tools/call: %v", err)
	}
}

// outcomeOf says whether an answer of the server shows the call ran.
func outcomeOf(fields map[string]json.RawMessage) guard.Outcome {
	raw, isError := fields["error"]
	if !isError {
		return guard.Capture
	}
	var e struct {
		Code *int `json:"code"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Code != nil {
		switch *e.Code {
		case codeParseError, codeInvalidRequest, codeMethodNotFound, codeInvalidParams:
			return guard.Release
		}
	}
	return guard.Capture
}
