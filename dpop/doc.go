// Package dpop creates and checks DPoP proofs (RFC 9449). It knows nothing
// of tickets: a caller that binds a ticket to a key compares the RFC 7638
// thumbprint that [Verify] returns (or passes it in Expectations.Thumbprint)
// with the bound "jkt". Holder keys, their JWKs and thumbprints are
// package key's ([key.Holder], [key.HolderPublic]).
//
// Make builds a proof as RFC 9449 §4.2 describes (typ "dpop+jwt", the
// public JWK in the protected header, claims jti, htm, htu, iat and
// optionally nonce and ath), signed by a [key.Holder]: an Ed25519 key
// signs under "EdDSA" unless [MakeOptions].Algorithm asks for "Ed25519",
// because verifiers written before RFC 9864 refuse that name and every
// verifier that knows it knows "EdDSA" too.
// NormalizeURI compares URIs after RFC 3986 §6.2.2 and §6.2.3
// normalisation. Numeric limits and defaults are in limits.go: proofs of at
// most [MaxProofBytes] (8 KiB), a window of [DefaultMaxAge] (5 minutes) into
// the past and [DefaultFutureSkew] (30 seconds) into the future.
//
// # Contract of Verify
//
// Verify first validates the [Expectations]; unusable ones (no method, a URI
// [NormalizeURI] refuses, an allow-list naming "none", an HMAC or any
// algorithm other than ES256, EdDSA and Ed25519, a negative or over-long
// window)
// give an error wrapping [ErrExpectations], which does not match [ErrInvalid].
//
// Verify performs every check of RFC 9449 §4.3, in this fixed order, and the
// first failure is returned as an *[Error] whose [Check] field names it (every
// such error also matches ErrInvalid under errors.Is):
//
//  1. size: the proof is at most MaxProofBytes long (checked before parsing).
//  2. syntax: exactly one JWS in compact serialization (three base64url parts
//     in canonical unpadded form; JSON serialization, padding, whitespace and
//     unprotected headers are refused); the protected header is one JSON
//     object in valid UTF-8, without lone surrogate escapes, no value nested
//     deeper than 32 (a member's value is depth 1), without two members of
//     one object named alike at any depth (compared after unescaping), and
//     without "crit" or "b64".
//  3. typ: the protected header's "typ" is exactly "dpop+jwt".
//  4. alg: "alg" is on the caller's allow-list (default ES256, EdDSA and
//     [Ed25519], the fully-specified name of RFC 9864 §2.2 for what RFC
//     8037 calls EdDSA with an Ed25519 key; each is its own entry);
//     "none" and HMAC algorithms are never allowed.
//  5. jwk: "jwk" is present, is a public key only (no private or symmetric
//     members), its type matches alg (ES256: EC P-256; EdDSA and Ed25519:
//     OKP Ed25519), and its "alg" member, if any, equals alg.
//  6. signature: the JWS signature verifies with that jwk.
//  7. claims: the payload is exactly one JSON object held to the header's
//     rules of step 2; "jti" (non-empty string of at most [MaxJTIBytes]),
//     "htm" and "htu" (strings) and "iat" (a JSON integer literal: digits
//     only) are present; "nonce" and "ath", when present, are strings.
//     Other claims are ignored after a syntax check.
//  8. htm: equals Expectations.Method exactly (methods are case-sensitive).
//  9. htu: is an absolute URI and equals Expectations.URI once both are
//     normalised by NormalizeURI (RFC 3986 §6.2.2 syntax-based and §6.2.3
//     scheme-based normalisation; query and fragment are ignored).
//  10. iat: now-MaxAge <= iat <= now+FutureSkew (both edges included;
//     defaults DefaultMaxAge = 5 minutes and DefaultFutureSkew = 30 seconds,
//     at most MaxAgeLimit = 15 minutes and FutureSkewLimit = 5 minutes).
//  11. nonce: when Expectations.Nonce is set, the proof carries an equal
//     nonce; failures also match [ErrNonce], so that a server can answer with
//     a fresh DPoP-Nonce (RFC 9449 §8).
//  12. ath: when Expectations.AccessToken is set, "ath" equals
//     base64url(SHA-256(access token)) of the token exactly as given. When no
//     access token is expected, an "ath" claim is accepted and not checked.
//  13. jkt: when Expectations.Thumbprint is set, the RFC 7638 SHA-256
//     thumbprint of the jwk equals it (constant-time comparison).
//
// Verify does not remember jti values: replay detection is stateful and is
// the caller's job. Proof.ReplayKey (jti plus the normalised htu) and
// Proof.RememberUntil (iat + [RememberFor], the largest window any
// verifier may use, so that verifiers with different windows can share
// one replay store) are what to record, for example with
// [Proof.Remember] and a [MemoryReplayCache]. Replay is keyed on the jti, never
// on the proof bytes, because ECDSA signatures are malleable.
//
// # JWS and JSON
//
// The proof's JWS is checked as spec/FORMAT.md §4.5 steps 1–6 say, by
// hand: the protected header is decoded once, held to the lexical rules
// of step 2 by a small strict JSON scanner, and read by the same scanner
// ("typ", "alg" and "jwk", member names compared after unescaping, other
// members skipped whatever their values); the jwk's key is built as §4.4
// says (other jwk members ignored) by internal/jwk, the parser package key
// uses for the rebinding JWKs of tickets, on internal/strictjson, the
// scanner; the signature is checked by
// crypto/ecdsa (either form of s) or crypto/ed25519; the claims are
// decoded by the same scanner. go-jose is the reference for all of it, not
// the implementation: it decodes the header and jwk through reflection,
// which made a proof check about 1.03-1.10x go-jose's bare parse and
// verify (the target is at most 1.05x), and it refuses more than the
// spec (a header "kid" or "nonce" that is not a string, any "x5c" that is
// not a certificate chain, jwk members such as "kid", "use", "x5c", "x5u",
// "x5t", "n", "e" it cannot decode) and accepts what the spec refuses
// ("crit" or "b64" of null, private jwk members of null, "oth", a jwk "alg"
// of null, CR or LF inside x or y). Fuzz targets and rapid properties hold
// the hand-written path to go-jose's decisions, refusing check, key,
// payload and claims, except on exactly those rules, where the spec wins
// (reference_jws_test.go, reference_test.go). Measured as interleaved
// pairs in one process (TestPairs in pairs_test.go), a proof check now
// takes about 0.7-0.8x go-jose's bare parse and verify, and go-jose's
// path about 1.5x this one; decoding the claims with go-jose's JSON
// package would add about 5 µs and 27 allocations.
//
// Error strings start with "dpop: " followed by the check name, are
// lowercase apart from quoted values, have no trailing period, and never
// contain key material or the proof; they may quote a short (at most 64
// bytes) expected or actual htm or htu.
// Verify never panics, whatever its input.
package dpop
