package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/tickettool/tickettool/guard"
)

// OperationMeta is the member of a tools/call's params._meta that carries
// the agent's operation key (see guard.OperationStore): a string of 1 to
// guard.MaxOperationKey printable ASCII bytes, the same for every retry of
// one operation. The name is this project's reverse-DNS prefix, as MCP asks
// of _meta names. A repeat of a finished operation is answered with the
// first answer, byte for byte (the server is not contacted, nothing is
// charged); a key used for another call, or whose first call is still
// running, gets an isError result saying so.
const OperationMeta = "io.github.tickettool/operation"

// operationKey reads the call's operation key from params._meta: "" when
// there is none, an error when there is one that is not a valid key.
func operationKey(params map[string]json.RawMessage) (string, error) {
	raw, ok := present(params, "_meta")
	if !ok {
		return "", nil
	}
	meta, err := memberObject(raw, false)
	if err != nil {
		return "", nil // not an object: the server decides; no key
	}
	v, ok := meta[OperationMeta]
	if !ok {
		return "", nil
	}
	var key string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &key) != nil {
		return "", fmt.Errorf("params._meta[%q] must be a string", OperationMeta)
	}
	if err := guard.ValidateOperationKey(key); err != nil {
		return "", fmt.Errorf("params._meta[%q]: %v", OperationMeta, err)
	}
	return key, nil
}

// kept is what the guard keeps of an answer for a repeat: the answer's
// object without its jsonrpc and id members ({"result":…} or {"error":…}),
// the member's value as the server sent it.
func kept(fields map[string]json.RawMessage, result json.RawMessage) []byte {
	if raw, ok := fields["error"]; ok {
		return append(append([]byte(`{"error":`), raw...), '}')
	}
	return append(append([]byte(`{"result":`), result...), '}')
}

// replayResponse is the answer to a repeat: the kept answer under the
// repeat's id.
func replayResponse(id json.RawMessage, k []byte) []byte {
	if !bytes.HasPrefix(k, []byte(`{"`)) {
		k = []byte(`{"result":{}}`) // an outcome kept without an answer
	}
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	return append(append(b, ','), k[1:]...)
}

// finishOperation keeps a keyed call's answer in the store before the
// agent gets it, so that a guard killed after this still replays it.
func (p *Proxy) finishOperation(d *guard.Decision, answer []byte) {
	if d.Operation == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), StoreTimeout)
	defer cancel()
	kept, err := p.guard.FinishOperation(ctx, d, answer, p.cfg.Now())
	switch {
	case err != nil:
		p.log.Printf("tools/call: operation %q: its answer was not kept: %v", d.Operation, err)
	case !kept:
		p.log.Printf("tools/call: operation %q: its answer of %d bytes is over the size limit and was not kept; a repeat is refused", d.Operation, len(answer))
	}
}
