package chain

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/tickettool/tickettool/key"
)

// Checkpoint is what a signed checkpoint states about a log. Its text is a
// c2sp.org/tlog-checkpoint body, four lines each ending in a newline:
//
//	<origin>
//	<size: number of records, decimal>
//	<root: base64 of the RFC 6962 Merkle tree hash over the records' bytes>
//	head <base64 of the SHA-256 chain hash of the last record>
//
// The last line is an extension line; for an empty log, root is SHA-256 of
// the empty string (RFC 6962 §2.1) and head is [OriginHash](origin). The
// text is signed as a c2sp.org/signed-note (golang.org/x/mod/sumdb/note).
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
	Head   [32]byte
}

const headPrefix = "head "

// Text returns the checkpoint's note text.
func (c Checkpoint) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\n%s%s\n", c.Origin, c.Size,
		base64.StdEncoding.EncodeToString(c.Root[:]), headPrefix, base64.StdEncoding.EncodeToString(c.Head[:]))
}

func parseHash(s string) ([32]byte, bool) {
	var h [32]byte
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != len(h) || base64.StdEncoding.EncodeToString(b) != s {
		return h, false
	}
	copy(h[:], b)
	return h, true
}

// ParseCheckpoint parses a checkpoint's note text strictly: exactly the
// four lines Text writes, canonical decimal and base64, nothing else.
func ParseCheckpoint(text string) (Checkpoint, error) {
	bad := func(why string) (Checkpoint, error) { return Checkpoint{}, fmt.Errorf("%w: %s", ErrCheckpoint, why) }
	lines := strings.Split(text, "\n")
	if len(lines) != 5 || lines[4] != "" {
		return bad("not four lines")
	}
	var c Checkpoint
	if c.Origin = lines[0]; checkOrigin(c.Origin) != nil {
		return bad("invalid origin")
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != lines[1] {
		return bad("invalid size")
	}
	c.Size = n
	root, ok := parseHash(lines[2])
	if !ok {
		return bad("invalid root hash")
	}
	c.Root = root
	h, found := strings.CutPrefix(lines[3], headPrefix)
	head, ok := parseHash(h)
	if !found || !ok {
		return bad("invalid head line")
	}
	c.Head = head
	return c, nil
}

// Checkpoint returns the checkpoint of the verified log.
func (s *Summary) Checkpoint() Checkpoint {
	return Checkpoint{Origin: s.Origin, Size: s.Count, Root: s.Root, Head: s.Head}
}

// SignCheckpoint signs c with k as a signed note (see [key.Signing.NoteSigner]).
func SignCheckpoint(c Checkpoint, k *key.Signing) ([]byte, error) {
	if _, err := ParseCheckpoint(c.Text()); err != nil {
		return nil, err
	}
	if err := checkSigning(k); err != nil {
		return nil, err
	}
	s, err := k.NoteSigner()
	if err != nil {
		return nil, err
	}
	msg, err := note.Sign(&note.Note{Text: c.Text()}, s)
	if err != nil {
		return nil, fmt.Errorf("chain: sign checkpoint: %w", err)
	}
	return msg, nil
}

// OpenCheckpoint verifies a signed checkpoint with key (its verifying
// half suffices for Ed25519) and returns what it states. The note must be
// at most [MaxCheckpointBytes], carry a valid signature by key (signatures
// by other keys are ignored, as signed-note requires; a note with none by
// key is refused), and state origin.
func OpenCheckpoint(signed []byte, k *key.Verifying, origin string) (Checkpoint, error) {
	if err := checkOrigin(origin); err != nil {
		return Checkpoint{}, err
	}
	if len(signed) > MaxCheckpointBytes {
		return Checkpoint{}, fmt.Errorf("%w: longer than %d bytes", ErrCheckpoint, MaxCheckpointBytes)
	}
	if err := checkVerifying(k); err != nil {
		return Checkpoint{}, err
	}
	v, err := k.NoteVerifier()
	if err != nil {
		return Checkpoint{}, err
	}
	n, err := note.Open(signed, note.VerifierList(v))
	var une *note.UnverifiedNoteError
	if errors.As(err, &une) && len(une.Note.UnverifiedSigs) > 0 {
		var by []string
		for _, sig := range une.Note.UnverifiedSigs {
			by = append(by, fmt.Sprintf("%s+%08x", sig.Name, sig.Hash))
		}
		return Checkpoint{}, fmt.Errorf("%w: it is signed by key %s, not by key %s+%08x", ErrCheckpoint,
			quote(strings.Join(by, ", ")), v.Name(), v.KeyHash())
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	c, err := ParseCheckpoint(n.Text)
	if err != nil {
		return Checkpoint{}, err
	}
	if c.Origin != origin {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint is for origin %s, not %s", ErrCheckpoint, quote(c.Origin), quote(origin))
	}
	return c, nil
}

// MakeCheckpoint verifies the log at path (as [Verify] does) and returns a
// checkpoint of it signed with the signing k. An auditor keeps it.
func MakeCheckpoint(path string, k *key.Signing, origin string) ([]byte, error) {
	if err := checkSigning(k); err != nil {
		return nil, err
	}
	sum, err := Verify(path, k.Verifying(), origin)
	if err != nil {
		return nil, err
	}
	return SignCheckpoint(sum.Checkpoint(), k)
}

// VerifyCheckpoint verifies the log at path (as [Verify] does) and checks it
// against a signed checkpoint: a log with fewer records than the checkpoint
// was truncated or rolled back (ErrTruncated); a log whose first Size
// records do not have the checkpoint's Merkle root and head was rewritten
// (ErrForked). Both are *[CheckpointError]. A log that grew since the
// checkpoint passes; the summary describes the whole log.
func VerifyCheckpoint(path string, signed []byte, k *key.Verifying, origin string) (*Summary, error) {
	f, size, err := snapshot(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return verifyCheckpoint(io.NewSectionReader(f, 0, size), signed, k, origin, nil, nil)
}

// VerifyCheckpointBytes is [VerifyCheckpoint] over a log held in memory.
func VerifyCheckpointBytes(data, signed []byte, k *key.Verifying, origin string) (*Summary, error) {
	return verifyCheckpoint(bytes.NewReader(data), signed, k, origin, nil, nil)
}

func verifyCheckpoint(r io.Reader, signed []byte, k *key.Verifying, origin string, progress func(records, bytes int64), each func(int64, Record)) (*Summary, error) {
	c, err := OpenCheckpoint(signed, k, origin)
	if err != nil {
		return nil, err
	}
	v := newReplayer(k, origin)
	v.atIndex, v.progress, v.each = c.Size-1, progress, each
	sum, err := v.run(r)
	if err != nil {
		return nil, err
	}
	if sum.Count < c.Size {
		return nil, &CheckpointError{LogSize: sum.Count, CheckpointSize: c.Size, Err: ErrTruncated,
			Reason: "records were removed from the end (truncation) or an older copy was put back (rollback)"}
	}
	root, err := tlog.TreeHash(c.Size, sum.stored)
	if err != nil {
		return nil, fmt.Errorf("chain: merkle root: %w", err)
	}
	head := OriginHash(origin)
	if c.Size > 0 {
		head = v.headAt
	}
	if root != c.Root || head != c.Head {
		return nil, &CheckpointError{LogSize: sum.Count, CheckpointSize: c.Size, Err: ErrForked,
			Reason: fmt.Sprintf("the log's first %d records are not the ones the checkpoint commits to", c.Size)}
	}
	return sum, nil
}

// ProveInclusion returns the RFC 6962 inclusion proof (tlog.ProveRecord)
// that record index is in the tree of the summary's checkpoint.
func (s *Summary) ProveInclusion(index int64) (tlog.RecordProof, error) {
	if index < 0 || index >= s.Count {
		return nil, fmt.Errorf("chain: no record %d in a log of %d", index, s.Count)
	}
	return tlog.ProveRecord(s.Count, index, s.stored)
}

// ProveConsistency returns the RFC 6962 consistency proof (tlog.ProveTree)
// that the tree of the first older records is a prefix of the summary's
// tree. It is empty when older is 0 or s.Count.
func (s *Summary) ProveConsistency(older int64) (tlog.TreeProof, error) {
	if older < 0 || older > s.Count {
		return nil, fmt.Errorf("chain: cannot prove %d records consistent with a log of %d", older, s.Count)
	}
	if older == 0 {
		return tlog.TreeProof{}, nil
	}
	return tlog.ProveTree(s.Count, older, s.stored)
}

// CheckInclusion shows that record (its exact bytes) is record index of
// the log a signed checkpoint commits to, without the rest of the log: the
// checkpoint must verify (OpenCheckpoint), the record must decode strictly,
// verify with key and carry sequence number index, and proof must be a
// valid RFC 6962 inclusion proof (tlog.CheckRecord) of its leaf hash.
func CheckInclusion(signed []byte, index int64, record []byte, proof tlog.RecordProof, k *key.Verifying, origin string) (Record, error) {
	c, err := OpenCheckpoint(signed, k, origin)
	if err != nil {
		return Record{}, err
	}
	rec, err := VerifyRecord(record, k)
	if err != nil {
		return Record{}, err
	}
	if index < 0 || index >= c.Size || rec.Seq != uint64(index) || len(proof) > maxProofHashes {
		return Record{}, fmt.Errorf("chain: record %d is not in a checkpoint of %d records", index, c.Size)
	}
	if err := tlog.CheckRecord(proof, c.Size, c.Root, index, tlog.RecordHash(record)); err != nil {
		return Record{}, fmt.Errorf("chain: inclusion proof of record %d does not verify: %v", index, err)
	}
	return rec, nil
}

// CheckConsistency shows that the log of the newer signed checkpoint only
// grew from that of the older one (both verified with key for origin):
// proof must be the RFC 6962 consistency proof (tlog.CheckTree) from the
// older size to the newer. A newer checkpoint with fewer records matches
// [ErrTruncated]; any other disagreement [ErrForked] (*[CheckpointError]).
func CheckConsistency(older, newer []byte, proof tlog.TreeProof, k *key.Verifying, origin string) error {
	o, err := OpenCheckpoint(older, k, origin)
	if err != nil {
		return err
	}
	n, err := OpenCheckpoint(newer, k, origin)
	if err != nil {
		return err
	}
	fail := func(e error, why string) error {
		return &CheckpointError{LogSize: n.Size, CheckpointSize: o.Size, Err: e, Reason: why}
	}
	switch {
	case o.Size > n.Size:
		return fail(ErrTruncated, "the newer checkpoint has fewer records (truncation or rollback)")
	case len(proof) > maxProofHashes:
		return fail(ErrForked, "consistency proof is too long")
	case o.Size == 0:
		if len(proof) != 0 {
			return fail(ErrForked, "consistency proof from an empty log must be empty")
		}
		return nil
	case o.Size == n.Size && o.Head != n.Head:
		return fail(ErrForked, "same size, different head")
	}
	if err := tlog.CheckTree(proof, n.Size, n.Root, o.Size, o.Root); err != nil {
		return fail(ErrForked, "consistency proof does not verify: "+err.Error())
	}
	return nil
}
