// Package verify decides whether a ticket allows a request.
//
// Verify is a pure function: the same ticket, request, keyring, time and
// options give the same Decision, with no I/O, no clock of its own and no
// global state. In order, it:
//
//  1. finds the root key by the id block 0 names, and checks that the
//     verifier's policy accepts it and that its mode is the ticket's;
//  2. checks the chain: every HMAC tag (in constant time) or Ed25519
//     signature, and the seal;
//  3. checks that every block is at least as strict as the blocks before it
//     (by meaning: package caveat's Scope), that no block follows one whose
//     ops lack delegate, and that depth limits hold;
//  4. checks the caller's revoked set against every block id;
//  5. checks the verifier's own policy (expiry required, maximum lifetime),
//     which no ticket can weaken;
//  6. evaluates every caveat of every block against the request.
//
// Steps 1 and 2 stop at the first failure: nothing in an unverified ticket is
// looked at further. Later steps report every refusal they find.
//
// A refusal is a value (Decision.Refusals), not an error: which check, which
// block, which caveat kind, and a reason a person can act on. An error from
// Verify means the call itself was malformed (no ticket, no keyring); a
// ticket that cannot be decoded never reaches Verify (token.Parse fails with
// token.ErrMalformed).
//
// The stateful parts — counting calls and spend against Decision.Budgets,
// remembering DPoP proofs, writing receipts — belong to the caller (see
// package guard).
package verify
