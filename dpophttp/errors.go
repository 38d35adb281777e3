package dpophttp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// The error codes of a refusal (RFC 6750 §3.1, RFC 9449 §7.1 and §9).
const (
	CodeInvalidRequest    = "invalid_request"    // 400: the request is malformed
	CodeInvalidToken      = "invalid_token"      // 401: the ticket is malformed, tampered, expired, revoked, for another key or audience
	CodeInvalidProof      = "invalid_dpop_proof" // 401: the proof is missing, invalid or replayed
	CodeUseNonce          = "use_dpop_nonce"     // 401: the proof must carry the nonce in DPoP-Nonce
	CodeInsufficientScope = "insufficient_scope" // 403: the ticket is valid but does not allow this request
	CodeServerError       = "server_error"       // 503 or 500: the store or the receipt log failed
)

// Error is a refused request, as the error handler gets it.
type Error struct {
	Status      int    // the HTTP status
	Code        string // one of the Code constants; "" for a request with no ticket at all
	Description string // for a person: names block and caveat, never the ticket or proof
	// Refusals are the verifier's, as verify --json gives them.
	Refusals []verify.Refusal
	// Missing are the approvals refused for want of a discharge: whom to
	// ask and the code of what to approve.
	Missing []verify.Missing

	// Challenge data, filled in by the middleware.
	Algs             string // the DPoP challenge's algs
	Bearer           bool   // a Bearer challenge is sent too
	ResourceMetadata string // RFC 9728 metadata URL, or ""
}

// Error returns "dpophttp: CODE: DESCRIPTION".
func (e *Error) Error() string {
	code := e.Code
	if code == "" {
		code = "unauthorized"
	}
	return "dpophttp: " + code + ": " + e.Description
}

func malformed(why string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, Description: why}
}

func tooLarge(max int64) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeInvalidRequest,
		Description: fmt.Sprintf("the body is over %d bytes", max)}
}

// Challenges returns the WWW-Authenticate values of e: a DPoP challenge
// (RFC 9449 §7.1) with the algs, and a Bearer one (RFC 6750 §3) when
// unbound tickets are accepted. The error code and description go in
// both, except a proof's (invalid_dpop_proof, use_dpop_nonce), which
// only the DPoP challenge carries. A server error has no challenge.
func (e *Error) Challenges() []string {
	if e.Status != http.StatusUnauthorized && e.Status != http.StatusForbidden && e.Status != http.StatusBadRequest {
		return nil
	}
	var common, errp []string
	if e.ResourceMetadata != "" {
		common = append(common, `resource_metadata="`+Sanitize(e.ResourceMetadata)+`"`)
	}
	if e.Code != "" {
		errp = append(errp, `error="`+e.Code+`"`)
		if e.Description != "" {
			errp = append(errp, `error_description="`+Sanitize(e.Description)+`"`)
		}
	}
	dp := append([]string{`algs="` + e.Algs + `"`}, common...)
	out := []string{"DPoP " + strings.Join(append(dp, errp...), ", ")}
	if e.Bearer {
		bp := common
		if e.Code != CodeInvalidProof && e.Code != CodeUseNonce {
			bp = append(append([]string(nil), common...), errp...)
		}
		out = append(out, strings.TrimSpace("Bearer "+strings.Join(bp, ", ")))
	}
	return out
}

// Sanitize returns s in the character set RFC 6750 §3 allows in
// error_description (printable ASCII without '"' and '\'), at most 512
// bytes: '"' becomes '\”, '\' becomes '/', anything else outside it '?'.
func Sanitize(s string) string {
	var b strings.Builder
	for _, c := range s {
		if b.Len() >= maxDescription {
			break
		}
		switch {
		case c == '"':
			b.WriteByte('\'')
		case c == '\\':
			b.WriteByte('/')
		case c < 0x20 || c > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// errorBody is the JSON body of a refusal.
type errorBody struct {
	Error       string         `json:"error"`
	Description string         `json:"error_description"`
	Refusals    []refusalJSON  `json:"refusals"`
	Approvals   []approvalJSON `json:"approvals,omitempty"`
}

// refusalJSON is a refusal as verify --json gives it.
type refusalJSON struct {
	Check  string `json:"check"`
	Block  int    `json:"block"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// approvalJSON is an approval the request lacks: whom to ask and the code
// people compare.
//
// A threshold approval has no key_id: need is its threshold, approved
// the approvers who did, waiting the others.
type approvalJSON struct {
	Block    int      `json:"block"`
	KeyID    string   `json:"key_id,omitempty"`
	Need     int      `json:"need,omitempty"`
	Approved []string `json:"approved,omitempty"`
	Waiting  []string `json:"waiting,omitempty"`
	Location string   `json:"location"`
	Code     string   `json:"code"`
}

// WriteError is the default error handler: the status, the challenges in
// WWW-Authenticate, Cache-Control no-store, and a JSON body with error,
// error_description, refusals and, for missing approvals, approvals.
func WriteError(w http.ResponseWriter, _ *http.Request, e *Error) {
	h := w.Header()
	for _, c := range e.Challenges() {
		h.Add("WWW-Authenticate", c)
	}
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "application/json")
	code := e.Code
	if code == "" {
		code = "unauthorized"
	}
	body := errorBody{Error: code, Description: e.Description, Refusals: []refusalJSON{}}
	for _, r := range e.Refusals {
		kind := ""
		if r.Kind != 0 {
			kind = r.Kind.String()
		}
		body.Refusals = append(body.Refusals, refusalJSON{Check: string(r.Check), Block: r.Block, Kind: kind, Reason: r.Reason})
	}
	for _, x := range e.Missing {
		a := approvalJSON{Block: x.Block, KeyID: x.KeyID, Location: x.Location, Code: token.BindingCode(x.Binding)}
		if x.Waiting != nil {
			a.Need, a.Approved, a.Waiting = x.Need, x.Approved, x.Waiting
		}
		body.Approvals = append(body.Approvals, a)
	}
	w.WriteHeader(e.Status)
	b, _ := json.Marshal(body)
	w.Write(append(b, '\n'))
}

// refusalError turns a refused decision into the refusal's status and
// code: a ticket that is itself unacceptable (key, chain, attenuation,
// revoked, policy, expiry, audience) is invalid_token; a proof that is
// missing, invalid or replayed is invalid_dpop_proof; a store that failed
// is a server error; a valid ticket that does not allow the request is
// insufficient_scope. The first of these that applies wins.
func refusalError(d *guard.Decision) *Error {
	best, bestRank := -1, 0
	for i := range d.Refusals {
		if rk, _, _ := classify(&d.Refusals[i]); best < 0 || rk < bestRank {
			best, bestRank = i, rk
		}
	}
	if best < 0 { // a refusal always names why; fail closed all the same
		return &Error{Status: http.StatusForbidden, Code: CodeInsufficientScope, Description: "refused"}
	}
	_, code, status := classify(&d.Refusals[best])
	e := &Error{Status: status, Code: code, Description: d.Refusals[best].String(), Refusals: d.Refusals}
	if code == CodeInsufficientScope {
		e.Missing = verify.MissingApproval(&d.Decision)
	}
	return e
}

// classify ranks one refusal: lower wins.
func classify(r *verify.Refusal) (rank int, code string, status int) {
	switch r.Check {
	case guard.CheckStore:
		return 0, CodeServerError, http.StatusServiceUnavailable
	case verify.CheckKey, verify.CheckMode, verify.CheckChain, verify.CheckAttenuation, verify.CheckPolicy:
		return 1, CodeInvalidToken, http.StatusUnauthorized
	case verify.CheckRevoked:
		if r.Kind == caveat.Approval {
			return 3, CodeInsufficientScope, http.StatusForbidden
		}
		return 1, CodeInvalidToken, http.StatusUnauthorized
	case verify.CheckDPoP:
		return 2, CodeInvalidProof, http.StatusUnauthorized
	case verify.CheckCaveat:
		switch r.Kind {
		case caveat.Until, caveat.NotBefore, caveat.Audience:
			return 1, CodeInvalidToken, http.StatusUnauthorized
		}
	}
	return 3, CodeInsufficientScope, http.StatusForbidden
}
