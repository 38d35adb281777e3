// Package dpophttp is the HTTP binding of tickets (spec/HTTP.md): a
// server middleware that checks a ticket on every request, as RFC 9449
// (DPoP) and RFC 6750 (Bearer) describe for access tokens, and a client
// transport that presents one.
//
// # Server
//
// [New] checks [Options] and returns a [Middleware]; its Handler wraps
// the handler it protects. For each request, in order:
//
//  1. Credentials: exactly one Authorization header, "DPoP <ticket>" with
//     exactly one DPoP header for a ticket bound to a holder key, or
//     "Bearer <ticket>" for an unbound ticket when Options.AllowBearer
//     says so (never with Policy.RequireHolder). A bound ticket under
//     Bearer is refused (RFC 9449 §7.2: no downgrade), as is an unbound
//     one under DPoP. Two Authorization or DPoP headers, a ticket in the
//     query string or in a form body are malformed (400).
//  2. Nonce (RFC 9449 §8–§9), unless Options.NoNonce: the proof must
//     carry a nonce the server issued in the current or the previous
//     window; otherwise the answer is 401 use_dpop_nonce with a fresh one
//     in DPoP-Nonce. Nonces are stateless, a MAC of the window under
//     Options.NonceKey, so a fleet sharing the key shares them without a
//     store. Any response to a proof whose nonce is not the current
//     window's carries the current one.
//  3. htu and htm: the proof must name the method and the public URL:
//     Options.PublicURL followed by the request's path. Host,
//     X-Forwarded-* and Forwarded are read only from
//     Options.TrustedProxies. ath is the SHA-256 of the ticket text as
//     sent, which must be the ticket's one canonical text.
//  4. Mapping: Options.Map, or [Middleware.DefaultMap], says what the
//     request asks for (tool, op, path, URL, audience, the args digest of
//     a JSON body); the discharges come in [DischargeHeader].
//  5. Decision: the guard (package guard, as the MCP guard and the hook
//     use it) verifies the ticket and the proof, admits the request in
//     the store in one atomic step (revocations, the proof's jti never
//     used before, every budget reserved) and writes the receipt. A
//     ticket's own checks (key, chain, narrowing) run once per ticket
//     text (guard.PreparedTicket, kept for up to MaxPreparedBytes of
//     text); revocation, expiry, the caveats and the proof are each
//     request's.
//  6. Settlement: the handler runs with the decision in its context
//     ([FromContext]); when it returns (whatever it wrote, or by
//     panicking) the reservation is captured, unless the handler called
//     [Release] to say nothing happened.
//
// A refused request never reaches the handler. The error handler
// (default [WriteError]) answers with RFC 6750 §3 and RFC 9449 §7.1
// challenges: 401 invalid_token (the ticket is malformed, tampered,
// expired, revoked, for another key or audience), 401
// invalid_dpop_proof (a proof missing, invalid, replayed, or for
// another method or URL), 401 use_dpop_nonce, 403 insufficient_scope (a
// valid ticket whose caveats refuse the request), 400 invalid_request, 413
// for a body over the limit, 408 for one too slow, 503 when the store
// fails; and a JSON body
// with error, error_description and the verifier's refusals.
//
// A request with an Idempotency-Key header ([IdempotencyKeyHeader]) is an
// operation: a repeat gets the first response back without the handler
// running or any charge; the key with another request is 422, during the
// first request 409 (spec/HTTP.md §7.1).
//
// Receipts: one per decision and per settlement (the guard's), and one
// per refusal the middleware makes before the guard. A request without
// any credentials, and a nonce challenge, are answered without a
// decision and recorded nowhere.
//
// [Middleware.Present] runs steps 1 to 3 alone, for a caller that decides
// with a guard of its own and its own mapping (an MCP listener deciding
// each tools/call under the client's ticket): the proof is then checked,
// and its jti recorded, by that decision.
//
// [Middleware.MetadataHandler] serves RFC 9728 protected-resource
// metadata.
package dpophttp
