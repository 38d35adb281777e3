// Package chain is tickettool's receipt chain: an append-only log with one
// signed record per authorisation decision, which an auditor verifies
// later. FORMAT.md beside this file states the same format for a second
// implementation.
//
// # Records
//
// A record is one CBOR map (RFC 8949) in core deterministic encoding
// (RFC 8949 §4.2.1) with unsigned integer keys:
//
//	key field     type                 present
//	 1  seq       uint                 always: the record's index in its log, from 0
//	 2  time      uint                 always: Unix time in milliseconds (UTC)
//	 3  kind      uint 1..8            always: intent, minted, delegated, allowed, refused, other, captured, released
//	 4  ticket    bstr, 1..64 bytes    when non-empty: the ticket id, ID_n of its last block
//	 5  family    bstr, 1..64 bytes    when non-empty: block 0's ticket id (field 3), shared by the family
//	 6  block     uint, 1..65535       when non-zero: the block the record is about
//	 7  tool      tstr                 when non-empty
//	 8  op        tstr                 when non-empty
//	 9  subjects  [+ tstr], 1..64      when non-empty
//	10  check     tstr                 when non-empty: for a refusal, the check that refused
//	11  caveat    tstr                 when non-empty: for a refusal, the caveat that refused
//	12  reason    tstr                 when non-empty: a short reason
//	13  note      tstr                 when non-empty
//	14  prev      bstr, 32 bytes       always: SHA-256 of the previous record's exact bytes
//	15  alg       uint 1..2            always: 1 Ed25519, 2 HMAC-SHA256
//	16  sig       bstr, 64 or 32 bytes always: the signature
//	17  approvals [+ [tstr, bstr]], 1..8 when non-empty: per discharge that allowed the call, [approver key id, DID]
//
// Fields 4..13 and 17 are omitted when empty, so every record has exactly
// one encoding. The signature covers
//
//	"tickettool/v1 receipt" || 0x00 || encoding of the map without key 16
//
// signed with Ed25519 (RFC 8032) or tagged with HMAC-SHA256 (RFC 2104);
// the record is that map with one more pair and its head's count raised
// by one (at most 17 pairs, head 0xa6 to 0xb1): the signature's pair is
// appended, or, when field 17 is present, inserted just before it, keys
// ascending. The first record's prev is
// the origin hash SHA-256("tickettool/v1 receipt origin" || 0x00 ||
// origin), which binds the whole chain to the log's origin.
//
// Decoding is strict: one canonical item (internal/wire), no
// unknown, missing or empty-but-present field, values within limits.go,
// and the record must re-encode to exactly its bytes.
//
// # Log files
//
// A log is a file holding an RFC 8742 CBOR sequence of records and nothing
// else. Log.Append writes under an exclusive flock(2) with O_APPEND and
// fsyncs before returning; [Verify] replays the chain and stops at the first
// break (*[BreakError]); a crash mid-append leaves a torn tail, which Verify
// reports (ErrTorn), Append refuses, and [Repair] drops, saying exactly what.
//
// [Open] reads a bounded part of the file, however long the log: record 0
// (the file is a log of this origin, signed under the key) and the end
// (the last record verifies under the key and links to the one before it,
// and nothing follows it). Only Verify checks every record; a break in the
// middle of a log (a lost page, deleted records) is its to find: such a
// log still opens and is appended to, and "receipt verify" reports the
// break. The cost of an open must not grow with the log; this is its price, and
// the reason to run "receipt verify" on a schedule.
//
// A record-like offset is a map head of 6 to 17 pairs (0xa6 to 0xb1),
// key 1, an unsigned integer head. A tail is torn only when the file ends
// inside its first incomplete item
// (or holds only zero bytes from there) and no complete, well-formed record
// (one [Decode] accepts) starts anywhere after that item's first byte: a
// crash leaves nothing after the record it cut short. Otherwise the log is
// broken at that item, not torn, wherever it is reported (Verify, [Scan],
// [Open], Append), and Repair refuses it and changes nothing: a changed
// length byte in record 0 must not make the records after it look like the
// rest of one incomplete record. The search for such a record tries at
// most 8 record-like offsets (linear time); when more of them follow, the
// tail counts as broken (fail closed).
//
// # Checkpoints
//
// A checkpoint (c2sp.org/tlog-checkpoint, signed as a c2sp.org/signed-note
// through golang.org/x/mod/sumdb/note) states the log's origin, its number
// of records, the RFC 6962 Merkle tree hash over the records' exact bytes
// (computed with golang.org/x/mod/sumdb/tlog) and, in an extension line,
// the chain head. Checking a log against a checkpoint detects truncation
// and rollback, which a bare hash chain cannot; consistency proofs show a
// newer checkpoint extends an older one, inclusion proofs that one record
// is in the log.
//
// # Keys
//
// Receipt keys are package key's: [Open], [MakeCheckpoint] and
// [SignCheckpoint] take a [key.Signing], the verifying functions a
// [key.Verifying]. Ed25519 keys are signed-note keys (note.GenerateKey's
// text form), so anyone with the public key verifies records and
// checkpoints. HMAC keys are 32-byte secrets; their checkpoint signatures
// use signature type 0xff "tickettool/v1 hmac-sha256", which only a holder
// of the secret can verify. Record field 15 numbers the algorithms 1 for
// Ed25519 and 2 for HMAC-SHA256 (the format's numbers, not key.Alg's). The
// key file and key string formats are FORMAT.md §4, written and read by
// package key.
package chain
