// Package token is the ticket format: blocks of caveats chained either by
// HMAC-SHA256 (RFC 2104; the verifier holds a secret) or by Ed25519
// (RFC 8032; the verifier holds only a public key), encoded as
// deterministic CBOR (RFC 8949 §4.2.1) and carried as text.
//
// The exact bytes are specified in spec/FORMAT.md; this package follows
// it. In short:
//
//   - A ticket is a CBOR map holding its blocks, each as a byte string of
//     the block's exact encoding, so signatures and tags cover exactly the
//     bytes that travel and nothing is ever re-encoded to be checked.
//   - Block 0 names the chaining mode, the root key id and a random 16-byte
//     ticket id; every block carries a map of caveats (package caveat).
//   - HMAC mode: tag0 = HMAC(K, label‖block0) with K derived from the root
//     key and the ticket id; tag_i = HMAC(tag_{i-1}, label‖block_i). The
//     ticket carries the last tag, which lets its holder append.
//   - Ed25519 mode: each block names a fresh next public key; block i is
//     signed by the private key of block i-1's next key, over the previous
//     signature and the block. The ticket carries the last next private
//     key, which lets its holder append.
//   - Seal replaces the appending secret with a final tag or signature, after
//     which nothing can be appended.
//
// Decoding is strict: every input has at most one accepted encoding, and
// anything else is [ErrMalformed]. The bytes themselves (the envelope, the
// block, the caveat values, the canonical CBOR reader) are the module's
// one wire layer, internal/wire; this package checks what they mean. Nothing read from a ticket before its chain
// is checked by a verifier can be trusted; accessors that return such data
// are named Unverified….
//
// Root keys are package key's: [Mint] takes a [key.Signing] (HMACSHA256 or
// Ed25519), [Ticket.VerifyChain] and [Keyring] take [key.Verifying], and a
// rebinding block is signed by the current holder's [key.Holder]. The key
// decides the mode (block 0's field 1: 1 for HMAC, 2 for Ed25519, numbers
// of the format, not key.Alg's); a ticket naming another mode is refused.
//
// Approvals (spec/FORMAT.md §4.6 "Approvals and discharges"):
// an approval caveat in block j names an approver's Ed25519 key inline.
// [Ticket.Binding] computes Bind_j, a hash of the exact bytes of blocks 0
// to j under its own label, from the ticket's text alone, in both modes;
// [BindingCode] is its short form for people. The approver answers with a
// [Discharge] ([Approve]): one block naming Bind_j, its own caveats (until
// required, never an approval) and a random nonce, signed with its key
// under its own label and carried as text after [DischargePrefix]. A
// discharge is sealed by construction; its prefix, envelope and label all
// differ from a ticket's, so neither is ever read or verified as the other.
// [Discharge.Verify] checks its signature; matching it to a ticket's
// approvals and checking its caveats are package verify's.
//
// Checking a ticket against a request is the job of package verify; this
// package checks only the chain (VerifyChain) and the narrowing of caveats
// when appending (Attenuate).
package token
