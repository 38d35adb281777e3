package dpophttp

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tickettool/tickettool/token"
)

// DischargeHeader carries the discharges (approvals) presented with a
// request: one or more header fields, each a comma-separated list of
// discharge texts (spec/HTTP.md).
const DischargeHeader = "Ticket-Discharge"

// Scheme is how a ticket is presented.
type Scheme string

// The two schemes of the Authorization header.
const (
	SchemeDPoP   Scheme = "DPoP"   // RFC 9449 §7.1: a bound ticket with a proof
	SchemeBearer Scheme = "Bearer" // RFC 6750 §2.1: an unbound ticket
)

// credentials are what a request presents.
type credentials struct {
	scheme     Scheme
	ticket     string
	proof      string
	discharges []string
}

// readCredentials reads the Authorization, DPoP and discharge headers, or
// returns the refusal of a malformed or missing presentation.
func (m *Middleware) readCredentials(r *http.Request) (*credentials, *Error) {
	if e := ticketInQuery(r.URL.RawQuery); e != nil {
		return nil, e
	}
	auth := r.Header.Values("Authorization")
	proofs := r.Header.Values("DPoP")
	size := 0
	for _, v := range append(append(append([]string(nil), auth...), proofs...), r.Header.Values(DischargeHeader)...) {
		size += len(v)
	}
	switch {
	case size > MaxHeaderBytes:
		return nil, malformed("the Authorization, DPoP and " + DischargeHeader + " headers are too long")
	case len(auth) == 0 && len(proofs) == 0:
		return nil, &Error{Status: http.StatusUnauthorized, Description: "no ticket: send Authorization: DPoP <ticket> with a DPoP proof"}
	case len(auth) == 0:
		return nil, malformed("a DPoP proof without an Authorization header")
	case len(auth) > 1:
		return nil, malformed("more than one Authorization header")
	case len(proofs) > 1:
		return nil, malformed("more than one DPoP header")
	}
	scheme, tok, ok := strings.Cut(auth[0], " ")
	c := &credentials{ticket: tok}
	switch {
	case ok && strings.EqualFold(scheme, "DPoP"):
		c.scheme = SchemeDPoP
	case ok && strings.EqualFold(scheme, "Bearer"):
		c.scheme = SchemeBearer
	default:
		return nil, &Error{Status: http.StatusUnauthorized, Description: "the Authorization scheme is neither DPoP nor Bearer"}
	}
	if tok == "" || strings.ContainsAny(tok, " \t,") {
		return nil, malformed("the Authorization header must hold one scheme and one ticket")
	}
	if !strings.HasPrefix(tok, token.Prefix) {
		return nil, &Error{Status: http.StatusUnauthorized, Code: CodeInvalidToken, Description: "the credential is not a ticket"}
	}
	if len(proofs) == 1 {
		c.proof = proofs[0]
		if c.scheme == SchemeBearer {
			return nil, malformed("a DPoP proof with a Bearer ticket: send a bound ticket with the DPoP scheme")
		}
	}
	for _, v := range r.Header.Values(DischargeHeader) {
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d == "" {
				return nil, malformed("an empty discharge in " + DischargeHeader)
			}
			c.discharges = append(c.discharges, d)
		}
	}
	return c, nil
}

// ticketInQuery refuses a ticket in the query string (RFC 6750 §2.3:
// a URI is logged and cached, so the ticket would leak).
func ticketInQuery(raw string) *Error {
	if raw == "" {
		return nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return malformed("the query string does not parse")
	}
	if hasTicket(q) {
		return malformed("a ticket in the query string: send it in the Authorization header")
	}
	return nil
}

// hasTicket reports whether a query or form carries access_token or any
// value that is a ticket or a proof-like credential.
func hasTicket(v url.Values) bool {
	for k, vs := range v {
		if k == "access_token" {
			return true
		}
		for _, s := range vs {
			if strings.HasPrefix(strings.TrimSpace(s), token.Prefix) {
				return true
			}
		}
	}
	return false
}
