// Package verify decides whether a ticket allows a request.
//
// Verify is a pure function: the same ticket, request, keyring, time and
// options give the same [Decision], with no I/O, no clock of its own and no
// global state. In order (spec/FORMAT.md §7 states it exactly), it:
//
//  0. decodes the request's discharges (caveat.Request.Discharges, at
//     most [MaxDischarges]) strictly — one that does not decode is
//     malformed input: an error (*[DischargeError]), no decision;
//  1. finds the root key by the id block 0 names, and checks that the
//     verifier accepts the key's mode and that it is the ticket's, then
//     checks the chain: every HMAC tag (in constant time) or Ed25519
//     signature, and the tail or seal — the first failure is the only
//     refusal;
//  2. checks that every block may follow the ones before it (ops with
//     delegate, depth), is at least as strict as they are (by meaning:
//     package caveat's Scope) and rebinds only as §4.4 allows — the first
//     failure is the only refusal;
//  3. checks the caller's revoked set against every block id — any refusal
//     here ends the decision;
//  4. checks the verifier's own policy (holder required, expiry required,
//     maximum lifetime), which no ticket can weaken — every refusal that
//     applies, and then the decision ends;
//  5. evaluates every caveat of every block against the request; then
//     matches each approval caveat to the one discharge bound to it
//     (token.Ticket.Binding, compared before any signature work) and
//     checks that discharge: the approver's key id, its signature under
//     the caveat's inline key, its time window (at most
//     [MaxDischargeLifetime] ahead), its caveats against the request and
//     its id against the revoked set; and refuses every discharge that
//     matches no approval (§7 step 6a); then, for a bound ticket, the
//     holder's DPoP proof (RFC 9449 §4.3) — every caveat refusal, then
//     the approvals', then the proof's.
//
// A refusal is a value (Decision.Refusals), not an error: which check, which
// block, which caveat kind, and a reason a person can act on. An error from
// [Verify] means the call itself was malformed (no ticket, no keyring) or
// one of its discharges is (wrapping token.ErrMalformed); a ticket that
// cannot be decoded never reaches Verify (token.Parse fails with
// token.ErrMalformed). The approvals a decision refused for want of a
// discharge, with whom to ask and the binding's code, are
// [MissingApproval]'s; the discharges it used are Decision.Discharges.
//
// [Prepare] runs steps 1 and 2 once for a ticket that many calls present
// (a proxy's own ticket); its [Prepared.Verify] runs steps 3 to 5 for each
// call and decides exactly as Verify does.
//
// [VerifyText] is Verify of a ticket's text form for a verifier's hot
// path: it parses the text as strictly as token.Parse, into pooled memory
// that it reads in place (views, not copies) and clears before it returns,
// and fills a Decision the caller reuses, so that in steady state it makes
// no allocation in either mode (a request with discharges allocates). It decides exactly as Verify of
// token.Parse does; tests and a fuzz target hold the two to one answer.
//
// The stateful parts — counting calls and spend against Decision.Budgets,
// remembering DPoP proofs, writing receipts — belong to the caller (see
// package guard).
package verify
