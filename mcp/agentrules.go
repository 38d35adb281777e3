package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/jcs"
)

// What the agent may send: the names, ids and shapes of its messages that
// the guard and any server read alike.

// messageNames are the members of a JSON-RPC message the proxy reads.
var messageNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// paramsNames are the members of a request's or notification's params the
// proxy reads, whatever the method: tools/call's name, arguments and _meta,
// the inputResponses and requestState of a multi round-trip request, a
// cancellation's requestId.
var paramsNames = []string{"name", "arguments", "_meta", "inputResponses", "requestState", "requestId", "task"}

// requestNames are the members a JSON-RPC 2.0 request or notification may
// have. The reference TypeScript SDK's schemas are strict: it drops a
// message with any other member without answering, so such a call, checked
// and forwarded, would hold the gate for ever.
var requestNames = []string{"jsonrpc", "id", "method", "params"}

var (
	errIDForm  = errors.New("mcp: request id must be a string of at most 256 bytes of valid text, or an integer within ±(2^53 - 1)")
	errIDInUse = errors.New("mcp: request id is in use by a request still awaiting its answer")
	errShape   = errors.New(`mcp: a request must be a JSON-RPC 2.0 object of "jsonrpc":"2.0", "method", "params" and "id" only`)
)

// agentID checks the id of a request from the agent and returns its key.
// The server may read ids otherwise than Go does: a JavaScript server reads
// every number as a double (2^53 + 1 is 2^53 there) and a lone surrogate
// escape as itself (Go makes every one U+FFFD), so two ids the guard tells
// apart could be one id to the server, and its answer to one taken for the
// other's. Only ids both read alike are accepted: short strings without
// U+FFFD, and integers a double holds exactly.
func agentID(raw json.RawMessage) (idKey, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || len(raw) > maxIDBytes {
		return "", errIDForm
	}
	k, ok := keyOf(raw)
	if !ok {
		return "", errIDForm
	}
	if raw[0] == '"' {
		if strings.ContainsRune(string(k[1:]), utf8.RuneError) {
			return "", errIDForm
		}
		return k, nil
	}
	digits, exp, _ := strings.Cut(string(k[1:]), "e")
	digits = strings.TrimPrefix(digits, "-")
	e, _ := strconv.Atoi(exp)
	if digits == "0" {
		return k, nil
	}
	if e < 0 || len(digits)+e > 16 {
		return "", errIDForm
	}
	n, err := strconv.ParseUint(digits+strings.Repeat("0", e), 10, 64)
	if err != nil || n > maxSafeInteger {
		return "", errIDForm
	}
	return k, nil
}

// checkShape refuses a request or notification from the agent with a
// member JSON-RPC 2.0 does not define or another jsonrpc than "2.0".
func checkShape(m *message) error {
	if string(bytes.TrimSpace(m.fields["jsonrpc"])) != `"2.0"` {
		return errShape
	}
	for f := range m.fields {
		if !slices.Contains(requestNames, f) {
			return errShape
		}
	}
	return nil
}

// trimJSON trims JSON's own whitespace (RFC 8259 §2: space, tab, line
// feed, carriage return) and nothing else: a line starting with another
// space (U+00A0, U+0085) is not JSON to the server, so it is not to the
// guard either.
func trimJSON(b []byte) []byte {
	return bytes.Trim(b, " \t\r\n")
}

// aliasError names a member whose name equals a name the proxy reads under
// Unicode case folding (jcs.FoldName) without being byte-equal to it. Servers that decode
// with Go's encoding/json match names that way ("Method", "ſtatus", "Key"),
// so they would act on a member the proxy never saw.
type aliasError struct{ where, name, want string }

func (e *aliasError) Error() string {
	return fmt.Sprintf("mcp: %s member %q is %q in another case: refused, since a server may read it as %q", e.where, e.name, e.want, e.want)
}

func (e *aliasError) Unwrap() error { return errAlias }

// checkAliases returns an *aliasError for the first member of fields (in
// name order) that folds to one of names without being byte-equal to it.
func checkAliases(where string, fields map[string]json.RawMessage, names ...string) error {
	var found *aliasError
	for f := range fields {
		if slices.Contains(names, f) {
			continue
		}
		fk := jcs.FoldName(f)
		for _, n := range names {
			if jcs.FoldName(n) == fk && (found == nil || f < found.name) {
				found = &aliasError{where: where, name: f, want: n}
			}
		}
	}
	if found == nil {
		return nil
	}
	return found
}
