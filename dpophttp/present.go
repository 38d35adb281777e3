package dpophttp

import (
	"net/http"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

// Presentation is what a request presents, as steps 1 to 3 of the
// middleware read and checked it (see the package documentation): the
// ticket, in its one canonical text, and for a DPoP ticket the proof with
// the method, public URL and nonce it must name. Neither the ticket's
// chain and caveats nor the proof are verified yet: the caller decides, as
// step 5 does, with a guard given Holder as caveat.Request.Holder, so that
// the proof's signature, window, ath and jkt are checked and its jti
// recorded in the store in the same atomic step as the budgets.
type Presentation struct {
	Ticket *token.Ticket
	// Holder is the proof to check; nil for a Bearer ticket.
	Holder *caveat.HolderProof
	// Discharges are the texts of the Ticket-Discharge headers, unparsed.
	Discharges []string
}

// Present runs the middleware's credential, scheme, nonce and public URL
// steps on r, for a caller that decides the request itself (an MCP
// listener deciding each tools/call under the client's ticket with its own
// call policy). A refusal is returned as the Handler would refuse it:
// write it with [Middleware.Refuse]. A nonce challenge sets DPoP-Nonce on
// w, as the Handler does.
func (m *Middleware) Present(w http.ResponseWriter, r *http.Request) (*Presentation, *Error) {
	now := m.opt.Now()
	c, e := m.readCredentials(r)
	if e != nil && e.Code == "" {
		return nil, e
	}
	if e != nil {
		return nil, m.early(r, nil, e, now)
	}
	p, err := m.prepare(c.ticket)
	if err != nil {
		return nil, m.early(r, nil, invalidToken("the ticket is malformed"), now)
	}
	if e := m.checkScheme(c, p.bound); e != nil {
		return nil, m.early(r, p.t, e, now)
	}
	nonce, e := m.checkNonce(w, c, now)
	if e != nil {
		return nil, e
	}
	htu, e := m.publicURL(r)
	if e != nil {
		return nil, m.early(r, p.t, e, now)
	}
	pr := &Presentation{Ticket: p.t, Discharges: c.discharges}
	if c.scheme == SchemeDPoP {
		pr.Holder = &caveat.HolderProof{Proof: c.proof, Method: r.Method, URI: htu, Nonce: nonce}
	}
	return pr, nil
}

// Refuse answers a refused request through the error handler, with the
// challenges the Handler sends (RFC 6750 §3, RFC 9449 §7.1).
func (m *Middleware) Refuse(w http.ResponseWriter, r *http.Request, e *Error) {
	m.refuse(w, r, e)
}
