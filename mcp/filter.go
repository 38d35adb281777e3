package mcp

import (
	"encoding/json"
	"errors"
	"net/url"
)

// Rewriting a message re-encodes only that message: its members are
// decoded into a map of raw JSON, one array in it is filtered, and the map is
// encoded again, so every other member (known or not) is kept, though its
// whitespace and member order may change.

// filterTools returns the tools/list result with only the tools the ticket
// names, or nil when nothing changes. Hiding tools is a courtesy to the
// agent; the check of every tools/call is what enforces the ticket.
func (p *Proxy) filterTools(result json.RawMessage) json.RawMessage {
	st := p.state()
	if len(st.tools) == 0 {
		return nil
	}
	var fields map[string]json.RawMessage
	var tools []json.RawMessage
	if json.Unmarshal(result, &fields) != nil || json.Unmarshal(fields["tools"], &tools) != nil || tools == nil {
		return nil
	}
	kept := make([]json.RawMessage, 0, len(tools))
	for _, t := range tools {
		var tool struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(t, &tool) == nil && st.toolAllowed(p.qualify(tool.Name)) {
			kept = append(kept, t)
		}
	}
	if len(kept) == len(tools) {
		return nil
	}
	fields["tools"] = marshal(kept)
	return marshal(fields)
}

var errRoots = errors.New("mcp: roots cannot be checked")

// filterRoots returns a roots/list result (the agent's answer to the
// server) with only the roots that lie inside the ticket's paths, or nil
// when nothing changes. A root is a file:// URI of an absolute path; it is
// kept when the path, and where it leads through symbolic links, are
// admitted by every paths caveat. Anything else is dropped, never narrowed.
// An answer that cannot be parsed unambiguously is an error.
func (p *Proxy) filterRoots(st *ticketState, result json.RawMessage) (json.RawMessage, error) {
	if len(st.paths) == 0 {
		return nil, nil
	}
	fields, err := strictObject(result)
	if err != nil || checkAliases("result", fields, "roots") != nil {
		return nil, errRoots
	}
	raw, ok := fields["roots"]
	if !ok {
		return nil, nil
	}
	var roots []json.RawMessage
	if json.Unmarshal(raw, &roots) != nil {
		return nil, errRoots
	}
	kept := make([]json.RawMessage, 0, len(roots))
	for _, r := range roots {
		if p.rootAllowed(st, r) {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(roots) {
		return nil, nil
	}
	p.log.Printf("roots: kept %d of %d (the others lie outside the ticket's paths)", len(kept), len(roots))
	fields["roots"] = marshal(kept)
	return marshal(fields), nil
}

func (p *Proxy) rootAllowed(st *ticketState, raw json.RawMessage) bool {
	root, err := strictObject(raw)
	if err != nil || checkAliases("root", root, "uri") != nil {
		return false
	}
	var uri string
	if json.Unmarshal(root["uri"], &uri) != nil {
		return false
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Host != "" && u.Host != "localhost" || u.Path == "" {
		return false
	}
	paths, err := withResolved([]string{u.Path}, "")
	return err == nil && st.pathsAllowed(paths)
}

// filterParams returns a request's line with the roots answers it carries
// in params.inputResponses filtered (multi round-trip requests, protocol
// 2026-07-28: the server asks for roots in an input-required result and
// the client retries the call with the answers), or the line as it came
// when nothing changes.
func (p *Proxy) filterParams(st *ticketState, m *message, params map[string]json.RawMessage, line []byte) ([]byte, error) {
	raw, ok := params["inputResponses"]
	if !ok || len(st.paths) == 0 {
		return line, nil
	}
	responses, err := strictObject(raw)
	if err != nil {
		return nil, errRoots
	}
	changed := false
	for k, v := range responses {
		nv, err := p.filterRoots(st, v)
		if err != nil {
			return nil, err
		}
		if nv != nil {
			responses[k], changed = nv, true
		}
	}
	if !changed {
		return line, nil
	}
	params["inputResponses"] = marshal(responses)
	m.fields["params"] = marshal(params)
	return marshal(m.fields), nil
}
