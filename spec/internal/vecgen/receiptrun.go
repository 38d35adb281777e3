package vecgen

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/key"
)

// VerifierKey returns the key a verifier holds for id: the public key
// alone for Ed25519, the secret for HMAC.
func (f *ReceiptFile) VerifierKey(id string) (*key.Verifying, error) {
	k, ok := f.Keys[id]
	if !ok {
		return nil, fmt.Errorf("no receipt key %q", id)
	}
	switch k.Alg {
	case "ed25519":
		pub, _ := hex.DecodeString(k.Public)
		return key.NewEd25519Public(k.Name, pub)
	case "hmac-sha256":
		sk, err := f.signingKey(id)
		if err != nil {
			return nil, err
		}
		return sk.Verifying(), nil
	}
	return nil, fmt.Errorf("receipt key %q: unknown alg %q", id, k.Alg)
}

// signingKey returns the key that signs for id.
func (f *ReceiptFile) signingKey(id string) (*key.Signing, error) {
	k := f.Keys[id]
	if k.Alg == "hmac-sha256" {
		secret, _ := hex.DecodeString(k.Secret)
		return key.NewHMAC(k.Name, secret)
	}
	seed, _ := hex.DecodeString(k.Seed)
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("receipt key %q: bad seed", id)
	}
	return key.NewEd25519(k.Name, ed25519.NewKeyFromSeed(seed))
}

// RunLog checks a valid log against package chain: every record decodes
// to its fields and verifies alone, Scan yields every record at its
// offset, VerifyBytes gives the summary, and the checkpoint opens, matches
// the log, and is what SignCheckpoint makes of the summary.
func (f *ReceiptFile) RunLog(l *ReceiptLog) error {
	vk, err := f.VerifierKey(l.Key)
	if err != nil {
		return err
	}
	oh := chain.OriginHash(f.Origin)
	if hex.EncodeToString(oh[:]) != f.OriginHash {
		return fmt.Errorf("origin hash %x", oh)
	}
	data, _ := hex.DecodeString(l.LogHex)
	var entries []chain.Entry
	for e, err := range chain.Scan(bytes.NewReader(data)) {
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		entries = append(entries, e)
	}
	if len(entries) != len(l.Records) {
		return fmt.Errorf("scan yields %d records, want %d", len(entries), len(l.Records))
	}
	for i, want := range l.Records {
		e := entries[i]
		rec, err := chain.VerifyRecord(e.Bytes, vk)
		in, _ := rec.SigningInput()
		h := chain.Hash(e.Bytes)
		switch {
		case err != nil:
			return fmt.Errorf("record %d: %w", i, err)
		case e.Index != int64(i) || e.Offset != want.Offset || hex.EncodeToString(e.Bytes) != want.Bytes:
			return fmt.Errorf("record %d: scan gives index %d offset %d bytes %x", i, e.Index, e.Offset, e.Bytes)
		case !reflect.DeepEqual(fields(rec), want.Fields) || !reflect.DeepEqual(fields(e.Record), want.Fields):
			return fmt.Errorf("record %d: fields %+v, want %+v", i, fields(rec), want.Fields)
		case hex.EncodeToString(in) != want.SigningInput || hex.EncodeToString(h[:]) != want.Hash:
			return fmt.Errorf("record %d: signing input %x hash %x", i, in, h)
		}
	}
	sum, err := chain.VerifyBytes(data, vk, f.Origin)
	if err != nil {
		return err
	}
	got := ReceiptSummary{Count: sum.Count, Size: sum.Size, Head: hex.EncodeToString(sum.Head[:]),
		Root: hex.EncodeToString(sum.Root[:]), LastTimeMS: sum.LastTime.UnixMilli()}
	if got != l.Summary {
		return fmt.Errorf("summary %+v, want %+v", got, l.Summary)
	}
	c, err := chain.OpenCheckpoint([]byte(l.Checkpoint), vk, f.Origin)
	if err != nil {
		return err
	}
	if c != sum.Checkpoint() {
		return fmt.Errorf("checkpoint states %+v, the log %+v", c, sum.Checkpoint())
	}
	sk, err := f.signingKey(l.Key)
	if err != nil {
		return err
	}
	cp, err := chain.SignCheckpoint(sum.Checkpoint(), sk)
	if err != nil || string(cp) != l.Checkpoint {
		return fmt.Errorf("chain.SignCheckpoint gives %q (%v)", cp, err)
	}
	return nil
}

// RunCase checks a case against package chain in memory (VerifyBytes,
// VerifyCheckpointBytes, Scan) and, when dir is not empty, from a log file
// written there (Verify, VerifyCheckpoint).
func (f *ReceiptFile) RunCase(c *ReceiptCase, dir string) error {
	kid, err := f.VerifierKey(c.Key)
	if err != nil {
		return err
	}
	data, err := hex.DecodeString(c.LogHex)
	if err != nil {
		return err
	}
	sum, err := chain.VerifyBytes(data, kid, f.Origin)
	if err := c.Expect.checkVerify(sum, err); err != nil {
		return fmt.Errorf("chain.VerifyBytes: %w", err)
	}
	if err := c.Expect.checkScan(data); err != nil {
		return err
	}
	if c.Checkpoint != "" {
		_, err := chain.VerifyCheckpointBytes(data, []byte(c.Checkpoint), kid, f.Origin)
		if err := c.Expect.checkCheckpoint(err); err != nil {
			return fmt.Errorf("chain.VerifyCheckpointBytes: %w", err)
		}
	} else if c.Expect.Checkpoint != "" {
		return errors.New("an expected checkpoint result without a checkpoint")
	}
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, "receipts.log")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	sum, err = chain.Verify(path, kid, f.Origin)
	if err := c.Expect.checkVerify(sum, err); err != nil {
		return fmt.Errorf("chain.Verify: %w", err)
	}
	if c.Checkpoint != "" {
		_, err := chain.VerifyCheckpoint(path, []byte(c.Checkpoint), kid, f.Origin)
		if err := c.Expect.checkCheckpoint(err); err != nil {
			return fmt.Errorf("chain.VerifyCheckpoint: %w", err)
		}
	}
	return nil
}

func (e *ReceiptExpect) checkVerify(sum *chain.Summary, err error) error {
	if e.Break == nil {
		if err != nil {
			return fmt.Errorf("got %v, want %d records", err, e.Count)
		}
		if sum.Count != e.Count || hex.EncodeToString(sum.Head[:]) != e.Head {
			return fmt.Errorf("got %d records head %x, want %d head %s", sum.Count, sum.Head, e.Count, e.Head)
		}
		return nil
	}
	return e.Break.check(err)
}

func (b *ReceiptBreak) check(err error) error {
	var be *chain.BreakError
	var ke *chain.KeyError
	if errors.As(err, &ke) && b.Index == 0 && b.Offset == 0 && !b.Torn {
		return nil // record 0 fails, and so does every other: package chain names the key
	}
	if !errors.As(err, &be) || !errors.Is(err, chain.ErrBroken) {
		return fmt.Errorf("got %v, want a break at record %d", err, b.Index)
	}
	if be.Index != b.Index || be.Offset != b.Offset || be.Torn != b.Torn || errors.Is(err, chain.ErrTorn) != b.Torn {
		return fmt.Errorf("got %v (torn %t), want record %d offset %d torn %t", err, be.Torn, b.Index, b.Offset, b.Torn)
	}
	return nil
}

func (e *ReceiptExpect) checkCheckpoint(err error) error {
	want := map[string]error{"ok": nil, "truncated": chain.ErrTruncated, "forked": chain.ErrForked, "invalid": chain.ErrCheckpoint}
	w, ok := want[e.Checkpoint]
	switch {
	case !ok:
		return fmt.Errorf("unknown checkpoint result %q", e.Checkpoint)
	case w == nil && err != nil, w != nil && !errors.Is(err, w):
		return fmt.Errorf("got %v, want %s", err, e.Checkpoint)
	}
	var ce *chain.CheckpointError
	if w == chain.ErrCheckpoint {
		if errors.As(err, &ce) || errors.Is(err, chain.ErrBroken) {
			return fmt.Errorf("got %v, want the checkpoint refused before the log is compared", err)
		}
		return nil
	}
	if w != nil && (!errors.As(err, &ce) || ce.LogSize != e.Count) {
		return fmt.Errorf("got %v, want a *CheckpointError with log size %d", err, e.Count)
	}
	return nil
}

// checkScan: Scan yields ScanRecords records; it stops with an error only
// at an item that does not decode: a break at index ScanRecords, torn
// exactly when the case's break is a torn tail there.
func (e *ReceiptExpect) checkScan(data []byte) error {
	var n int64
	var serr error
	for entry, err := range chain.Scan(bytes.NewReader(data)) {
		if err != nil {
			serr = err
			break
		}
		if entry.Index != n || !slices.Equal(entry.Bytes, data[entry.Offset:entry.Offset+int64(len(entry.Bytes))]) {
			return fmt.Errorf("scan: entry %d at index %d", n, entry.Index)
		}
		n++
	}
	if n != e.ScanRecords {
		return fmt.Errorf("scan yields %d records, want %d (%v)", n, e.ScanRecords, serr)
	}
	if e.Break != nil && e.Break.Torn {
		return e.Break.check(serr)
	}
	if serr == nil {
		return nil
	}
	var be *chain.BreakError
	if !errors.As(serr, &be) || be.Index != n || be.Torn {
		return fmt.Errorf("scan: %v, want a break (not torn) at record %d or none", serr, n)
	}
	if e.Break != nil && e.Break.Index == n {
		return e.Break.check(serr)
	}
	return nil
}
