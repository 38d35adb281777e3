// Package key holds every key of tickettool and every text and file form
// of one: the root keys that mint and verify tickets, the receipt keys
// that sign and verify receipt logs, and the holder keys of DPoP-bound
// tickets. Packages token, chain, dpop, verify, guard and mcp take keys of
// this package; the command-line tool writes and reads them here.
//
// # Root and receipt keys
//
// A [Signing] key is an HMAC-SHA256 secret (RFC 2104) or an Ed25519
// private key (RFC 8032); its [Verifying] key is the same secret, or the
// Ed25519 public key. Every key has an id: a ticket's block 0 names its
// root key's id, a checkpoint's signature line its receipt key's id. An id
// is 1 to [MaxIDBytes] bytes of printable ASCII other than space and '+'
// (0x21..0x7E without 0x2B), so that it is both a ticket key id
// (spec/FORMAT.md §3) and a signed-note key name (c2sp.org/signed-note).
// [Generate] makes a key from crypto/rand; [NewHMAC], [NewEd25519] and
// [NewEd25519Public] wrap existing key material. Key material never leaves
// the package as bytes: packages token and chain compute with it through
// [Signing.Sign], [Verifying.Verify] and [Verifying.MAC].
//
// The text form of these keys is a signed-note key string, one line
// (chain/FORMAT.md §4):
//
//	Ed25519 private: PRIVATE+KEY+<id>+<hash>+base64(0x01 || 32-byte seed)
//	Ed25519 public:  <id>+<hash>+base64(0x01 || 32-byte public key)
//	HMAC secret:     PRIVATE+KEY+<id>+<hash>+base64(0xff || "tickettool/v1 hmac-sha256" || 32-byte secret)
//
// where <hash> is the signed-note key hash in eight lowercase hex digits
// and base64 is RFC 4648 §4 with padding. The Ed25519 forms are those of
// golang.org/x/mod/sumdb/note, so any signed-note tool can check an
// Ed25519 checkpoint; an HMAC key has no public form. A key file holds one
// key string and a newline. [Signing.WriteFile] creates it exclusively with
// mode 0600; [Verifying.WriteFile] with 0644 for an Ed25519 public key (0600
// for an HMAC secret). [ReadSigningFile] and [ReadVerifyingFile] refuse a
// file holding a secret that group or others may access ([ErrFileMode]).
//
// # Holder keys
//
// A [Holder] is the private key of a DPoP-bound ticket's holder (RFC 9449):
// ECDSA P-256 ([ES256]) or Ed25519. Its text form is a private JWK
// (RFC 7517, RFC 8037 for Ed25519) with its "alg" ("ES256" or "EdDSA";
// "Ed25519", RFC 9864's name, is read as "EdDSA"); its
// [HolderPublic] is the public JWK, whose RFC 7638 SHA-256 thumbprint in
// base64url without padding (the "jkt" of RFC 9449 §6.1) is what a holder
// caveat names: [Holder.Thumbprint] and [HolderPublic.Thumbprint] return
// that string. [Holder.Sign] signs in the JWS form of the key's algorithm
// (RFC 7518 §3.4 r‖s with a low S for ES256, RFC 8037 §3.1 for EdDSA).
//
// # Secrets
//
// No secret key prints its key material: every fmt verb, String and
// GoString of a [Signing], an HMAC [Verifying] and a [Holder] show only its
// algorithm, id or thumbprint. No secret type has a MarshalText or
// MarshalJSON. The one function that returns a secret's text is
// [Signing.SecretText]; errors never quote a key or the text it came from.
// No function takes a source of randomness: keys come from crypto/rand
// (tests use testing/cryptotest.SetGlobalRandom).
package key
