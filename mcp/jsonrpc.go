package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// JSON-RPC error codes the proxy answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	// codeUnsupportedVersion is UnsupportedProtocolVersionError
	// (2026-07-28, basic/versioning).
	codeUnsupportedVersion = -32022
)

// idKey is a request id normalised for comparison: "s" and the decoded
// string, or "n" and the number's canonical decimal form (so 1, 1.0 and 1e0
// are one id and "1" another). The empty key means no usable id.
type idKey string

// message is one JSON-RPC message: its top-level members, kept as the exact
// bytes they arrived as.
type message struct {
	fields    map[string]json.RawMessage
	method    string // the method of a request or notification
	hasMethod bool
	id        json.RawMessage // the id as it arrived; nil when absent or null
	key       idKey
}

func (m *message) isRequest() bool      { return m.hasMethod && m.id != nil }
func (m *message) isNotification() bool { return m.hasMethod && m.id == nil }

var (
	errNotObject = errors.New("mcp: not a JSON object")
	errAlias     = errors.New("mcp: member name differs from a name the guard reads only in case")
	errDupKey    = errors.New("mcp: duplicate member names (after case folding)")
	errBadID     = errors.New("mcp: id is not a string or a number")
	errBadMethod = errors.New("mcp: method is not a string")
)

// parseMessage parses one line. With strict set (messages from the agent)
// the object must not hold two member names that are equal under Unicode
// case folding (jcs.FoldName, the rule of the args digest): a server
// decoding case-insensitively (Go's encoding/json) or keeping the first of
// duplicates would otherwise act on a member the proxy did not look at.
func parseMessage(line []byte, strict bool) (*message, error) {
	var fields map[string]json.RawMessage
	var err error
	line = bytes.Clone(line) // the members outlive a reader's buffer
	if strict {
		fields, err = strictObject(line)
	} else {
		fields, err = looseObject(line)
	}
	if err != nil {
		return nil, err
	}
	if strict {
		if err := checkAliases("message", fields, messageNames...); err != nil {
			return nil, err
		}
	}
	m := &message{fields: fields}
	if raw, ok := fields["method"]; ok {
		if !decodeString(raw, &m.method) {
			return nil, errBadMethod
		}
		m.hasMethod = true
	}
	if raw, ok := fields["id"]; ok && !bytes.Equal(raw, []byte("null")) {
		k, ok := keyOf(raw)
		if !ok {
			return nil, errBadID
		}
		m.id, m.key = raw, k
	}
	return m, nil
}

// keyOf normalises a JSON-RPC id. It reports false for anything but a
// string or a number (or a number whose exponent is out of range).
func keyOf(raw json.RawMessage) (idKey, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return idKey("s" + s), true
	}
	n, ok := canonicalNumber(string(raw))
	return idKey("n" + n), ok
}

// canonicalNumber returns a JSON number's value as [-]DIGITSeEXP with no
// leading or trailing zeros in DIGITS ("0" for zero), exactly, without
// floating point: 1, 1.0, 10e-1 and 0.1e1 all give "1e0".
func canonicalNumber(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, "0"
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], strings.TrimPrefix(s[i+1:], "+")
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || len(intPart) > 1 && intPart[0] == '0' {
		return "", false
	}
	e, err := strconv.ParseInt(exp, 10, 32)
	if err != nil {
		return "", false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	e -= int64(len(frac))
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		e++
	}
	if digits == "" {
		return "0", true
	}
	if neg {
		digits = "-" + digits
	}
	return digits + "e" + strconv.FormatInt(e, 10), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sniff looks into the start of a line that is too long or not valid JSON
// for a request's id, so that its sender can be answered instead of left
// waiting. It reports the id only when the object visibly is a request (a
// string method and a usable id both precede the point where reading
// stopped); anything else is dropped by the caller, never answered, since
// answering a response or a notification would confuse the peer.
func sniff(prefix []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var id json.RawMessage
	method := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			break
		}
		switch tok {
		case "id":
			if _, ok := keyOf(raw); ok {
				id = raw
			}
		case "method":
			method = len(raw) > 0 && raw[0] == '"'
		}
	}
	return id, method && id != nil
}

// errorResponse renders a JSON-RPC error response to the request id.
func errorResponse(id json.RawMessage, code int, msg string) []byte {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	return marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
}

// marshal encodes v without HTML escaping (so re-encoded members keep their
// characters) and without a trailing newline.
func marshal(v any) []byte {
	if m, ok := v.(map[string]json.RawMessage); ok {
		return marshalObject(m)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values built from already-parsed JSON reach here.
		panic("mcp: encoding a message: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
