package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Custom headers from tool parameters (2026-07-28,
// basic/transports/streamable-http, "Custom Headers from Tool Parameters"):
// a tool's inputSchema may mark properties, reachable from its root through
// "properties" keys only, with "x-mcp-header": NAME; a client over
// Streamable HTTP must send each such argument's value as Mcp-Param-NAME,
// and must drop from tools/list a tool whose annotations break the rules.
// The guard learns the annotations from the server's tools/list answers.

// paramHeader is one annotated property: the header's name part and the
// property's path in the arguments.
type paramHeader struct {
	name string
	path []string
}

// learnParams reads the tools of a tools/list answer: it keeps each valid
// tool's annotations for its calls, and returns the answer without the
// tools whose annotations are invalid (nil when it keeps every tool).
func (h *httpSide) learnParams(msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	var result map[string]json.RawMessage
	var tools []json.RawMessage
	if json.Unmarshal(m["result"], &result) != nil || json.Unmarshal(result["tools"], &tools) != nil {
		return nil
	}
	kept := make([]json.RawMessage, 0, len(tools))
	learned := map[string][]paramHeader{}
	for _, raw := range tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &tool) != nil {
			kept = append(kept, raw)
			continue
		}
		params, ok := schemaParams(tool.InputSchema)
		if !ok {
			h.p.log.Printf("tools/list: dropped tool %q: its x-mcp-header annotations break the transport's rules", tool.Name)
			continue
		}
		if len(params) > 0 {
			learned[tool.Name] = params
		}
		kept = append(kept, raw)
	}
	h.mu.Lock()
	for name, ps := range learned {
		h.params[name] = ps
	}
	h.mu.Unlock()
	if len(kept) == len(tools) {
		return nil
	}
	result["tools"] = marshal(kept)
	m["result"] = marshal(result)
	return marshal(m)
}

// schemaParams returns the annotated properties of an inputSchema, and
// false when an annotation breaks the rules: not a header token, repeated
// (in any case), on a property that is not a string, integer or boolean,
// or anywhere but on a chain of "properties" keys from the root.
func schemaParams(schema json.RawMessage) ([]paramHeader, bool) {
	var out []paramHeader
	seen := map[string]bool{}
	var walk func(raw json.RawMessage, path []string) bool
	walk = func(raw json.RawMessage, path []string) bool {
		var node map[string]json.RawMessage
		if json.Unmarshal(raw, &node) != nil {
			return true
		}
		var props map[string]json.RawMessage
		json.Unmarshal(node["properties"], &props)
		for name, prop := range props {
			p := append(append([]string(nil), path...), name)
			var pn map[string]json.RawMessage
			if json.Unmarshal(prop, &pn) != nil {
				continue
			}
			if ann, ok := pn["x-mcp-header"]; ok {
				var header, typ string
				if json.Unmarshal(ann, &header) != nil || !validHeaderName(header) || seen[strings.ToLower(header)] {
					return false
				}
				json.Unmarshal(pn["type"], &typ)
				if typ != "string" && typ != "integer" && typ != "boolean" {
					return false
				}
				seen[strings.ToLower(header)] = true
				out = append(out, paramHeader{header, p})
			}
			if !walk(prop, p) {
				return false
			}
		}
		return true
	}
	if !walk(schema, nil) {
		return nil, false
	}
	// An annotation off the chain of properties (under items, oneOf,
	// $ref, ...) makes the tool invalid.
	if bytes.Count(schema, []byte(`"x-mcp-header"`)) != len(out) {
		return nil, false
	}
	return out, true
}

// setParams sets the Mcp-Param headers of a tools/call to a tool the
// server annotated: each present argument of a primitive type, encoded as
// a header value. An absent one, or one of another type, is left out (the
// server then refuses the call, unread).
func (h *httpSide) setParams(req *http.Request, o *outgoing) {
	if o.method != "tools/call" || o.name == nil {
		return
	}
	h.mu.Lock()
	ps := h.params[*o.name]
	h.mu.Unlock()
	if len(ps) == 0 {
		return
	}
	var msg struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(o.msg, &msg) != nil {
		return
	}
	for _, p := range ps {
		cur := msg.Params.Arguments
		for _, key := range p.path {
			obj, err := strictObject(cur)
			if err != nil {
				cur = nil
				break
			}
			cur = obj[key]
		}
		if v, ok := primitive(cur); ok {
			req.Header.Set("Mcp-Param-"+p.name, headerValue(v))
		}
	}
}

// primitive renders a string, a safe integer or a boolean as the
// transport's header value.
func primitive(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch {
	case raw[0] == '"':
		var s string
		return s, json.Unmarshal(raw, &s) == nil
	case string(raw) == "true" || string(raw) == "false":
		return string(raw), true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}
