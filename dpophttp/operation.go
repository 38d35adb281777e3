package dpophttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tickettool/tickettool/guard"
)

// IdempotencyKeyHeader names the request's operation key
// (draft-ietf-httpapi-idempotency-key-header): a Structured Field String
// (RFC 8941 §3.3.3) of 1 to guard.MaxOperationKey printable ASCII
// characters without spaces, e.g. Idempotency-Key: "8e03978e-40d5". A
// request carrying one is an operation of the ticket's family, bound to
// the request (its tool, subjects and args digest): the first runs; a
// repeat gets the first response back (status, the handler's headers and
// the body byte for byte, with Idempotent-Replayed: true) without the
// handler being called or anything charged, from any middleware on the
// store; the same key with another request is refused with 422, and
// while the first request runs with 409.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayedHeader marks a response replayed for a repeated key.
const ReplayedHeader = "Idempotent-Replayed"

// The codes of an operation key's refusal (draft-ietf-httpapi-idempotency-key-header §2.7).
const (
	CodeKeyReused   = "idempotency_key_reused"    // 422: the key names another request
	CodeKeyInFlight = "idempotency_key_in_flight" // 409: the key's first request is still running
	CodeKeyConflict = "idempotency_key_conflict"  // 409: the first request's outcome is unknown, or its response was not kept
)

// idempotencyKey reads the request's operation key: "" when it has none.
func idempotencyKey(r *http.Request) (string, *Error) {
	vs := r.Header.Values(IdempotencyKeyHeader)
	switch {
	case len(vs) == 0:
		return "", nil
	case len(vs) > 1:
		return "", malformed("more than one " + IdempotencyKeyHeader + " header")
	}
	v := strings.Trim(vs[0], " \t")
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", malformed(IdempotencyKeyHeader + " must be a quoted string (RFC 8941 §3.3.3)")
	}
	key := v[1 : len(v)-1]
	if err := guard.ValidateOperationKey(key); err != nil || strings.ContainsAny(key, `"\`) {
		return "", malformed(IdempotencyKeyHeader + " must hold 1 to 255 printable ASCII characters without spaces, quotes or backslashes")
	}
	return key, nil
}

// operationError is the refusal of a request whose operation key's claim
// refused it.
func operationError(d *guard.Decision) *Error {
	e := &Error{Status: http.StatusConflict, Code: CodeKeyConflict, Refusals: d.Refusals}
	if len(d.Refusals) > 0 {
		e.Description = d.Refusals[0].String()
	}
	switch d.Claim {
	case guard.ClaimMismatch:
		e.Status, e.Code = http.StatusUnprocessableEntity, CodeKeyReused
	case guard.ClaimInFlight:
		e.Code = CodeKeyInFlight
	}
	return e
}

// keptResponse is what the store keeps of a response for a repeat.
type keptResponse struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// recorder holds back what the handler of a keyed request writes, so
// that the response is kept in the store before the client gets any of it
// (a server killed after the client got it still replays it). A response
// whose body grows over guard.MaxOperationResult is sent on from then on
// as it comes, and not kept; Flush is held back until then too.
type recorder struct {
	http.ResponseWriter
	status  int
	header  http.Header // the handler's headers when it wrote the status
	body    bytes.Buffer
	through bool // over the limit: passed through, not kept
}

func (r *recorder) WriteHeader(code int) {
	if r.status != 0 {
		return
	}
	r.status = code
	r.header = r.ResponseWriter.Header().Clone()
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if r.through {
		return r.ResponseWriter.Write(b)
	}
	r.body.Write(b)
	if r.body.Len() > guard.MaxOperationResult {
		r.through = true
		r.ResponseWriter.WriteHeader(r.status)
		if _, err := r.ResponseWriter.Write(r.body.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// Unwrap lets http.ResponseController reach the server's writer
// (deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush flushes the server's writer once the response passes through.
func (r *recorder) Flush() {
	if r.through {
		http.NewResponseController(r.ResponseWriter).Flush()
	}
}

// send writes what was held back.
func (r *recorder) send() {
	if r.through {
		return
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.ResponseWriter.WriteHeader(r.status)
	r.ResponseWriter.Write(r.body.Bytes())
}

// kept is the recorded response as the store keeps it; one over the
// limit is longer than guard.MaxOperationResult, so the store keeps only
// its outcome.
func (r *recorder) kept() []byte {
	if r.through {
		return make([]byte, guard.MaxOperationResult+1)
	}
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	h := r.header.Clone()
	for _, name := range []string{"Date", NonceHeader, "Set-Cookie"} {
		h.Del(name)
	}
	b, _ := json.Marshal(keptResponse{Status: r.status, Header: h, Body: r.body.Bytes()})
	return b
}

// finishOperation keeps the response of a keyed request whose handler
// returned.
func (m *Middleware) finishOperation(st *state, rec *recorder) {
	ctx, cancel := context.WithTimeout(context.Background(), m.opt.StoreTimeout)
	defer cancel()
	kept, err := m.guard.FinishOperation(ctx, &st.d, rec.kept(), m.opt.Now())
	switch {
	case err != nil:
		m.logLine("operation", "request "+st.d.Request.String()+": the response was not kept: "+err.Error())
	case !kept:
		m.logLine("operation", "request "+st.d.Request.String()+": the response is over the size limit and was not kept")
	}
}

// writeReplay answers a repeat with the kept response.
func writeReplay(w http.ResponseWriter, kept []byte) {
	var k keptResponse
	if json.Unmarshal(kept, &k) != nil || k.Status < 100 || k.Status > 999 {
		k = keptResponse{Status: http.StatusNoContent} // an outcome kept without a response
	}
	h := w.Header()
	for name, vs := range k.Header {
		h[name] = vs
	}
	h.Set(ReplayedHeader, "true")
	w.WriteHeader(k.Status)
	w.Write(k.Body)
}
