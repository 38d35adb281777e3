package chain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/tickettool/tickettool/key"
)

// Summary describes a log that verified.
type Summary struct {
	Origin   string
	Count    int64     // records
	Size     int64     // bytes
	Head     [32]byte  // SHA-256 of the last record, or OriginHash(Origin) when empty
	Root     tlog.Hash // RFC 6962 Merkle tree hash over the records' bytes
	LastTime time.Time // time of the last record; zero when empty
	stored   hashStore // tlog stored hashes, for proofs
}

// hashStore holds a tree's tlog stored hashes in index order.
type hashStore []tlog.Hash

// ReadHashes implements tlog.HashReader.
func (s hashStore) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		if x < 0 || x >= int64(len(s)) {
			return nil, errors.New("chain: hash index out of range")
		}
		out[i] = s[x]
	}
	return out, nil
}

func checkOrigin(origin string) error {
	if !validOrigin(origin) {
		return fmt.Errorf("chain: invalid origin %s (non-empty, at most %d bytes, no spaces, control characters or '+')", quote(origin), MaxOriginBytes)
	}
	return nil
}

// VerifyReader replays a whole log read from r with the verifying key
// (a signing key works too) for the log named origin. Every record must
// decode strictly (one canonical encoding), carry the key's algorithm and
// a valid signature over its signing input, have the sequence number of
// its position (from 0), hold in prev the SHA-256 of the previous record's
// exact bytes (OriginHash(origin) for the first), and a time no earlier
// than the previous record's. It stops at the first record that does not
// and returns a *[BreakError] (matching [ErrBroken], and [ErrTorn] when the log
// ends in an incomplete record with no complete record after it, and
// [ErrNotLog] when the input does not start with a record at all). When the
// first record fails on its algorithm or signature and no other record
// verifies under key either, the key is not the log's: that is a
// *[KeyError] (ErrWrongKey), not a break. Read errors are returned as they
// are.
//
// Decoding and signatures are checked on GOMAXPROCS goroutines at once,
// a batch of records at a time, and the chain (sequence, links, times,
// hashes) one record after another: the result, first break included, is
// the same as checking one record after another.
//
// A bare chain cannot show that records were removed from its end:
// compare with a checkpoint (VerifyCheckpoint) for that.
func VerifyReader(r io.Reader, k *key.Verifying, origin string) (*Summary, error) {
	if err := checkVerifying(k); err != nil {
		return nil, err
	}
	if err := checkOrigin(origin); err != nil {
		return nil, err
	}
	return newReplayer(k, origin).run(r)
}

// VerifyBytes is [VerifyReader] over a log held in memory.
func VerifyBytes(data []byte, k *key.Verifying, origin string) (*Summary, error) {
	return VerifyReader(bytes.NewReader(data), k, origin)
}

// Verify is [VerifyReader] over the log file at path. It reads the log as it
// was at one moment when no append was in progress (the length is taken
// under a shared lock), so that it never reports an append in flight as a
// torn tail, and it does not block appenders while it verifies.
func Verify(path string, k *key.Verifying, origin string) (*Summary, error) {
	f, size, err := snapshot(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return VerifyReader(io.NewSectionReader(f, 0, size), k, origin)
}

// snapshot opens the log at path for reading and returns its length as of
// a moment when no append was in progress.
func snapshot(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fileErr("open log", path, err)
	}
	if err := lockFile(f, false); err != nil {
		f.Close()
		return nil, 0, fileErr("lock log", path, err)
	}
	fi, err := f.Stat()
	unlockFile(f)
	if err == nil && !fi.Mode().IsRegular() {
		err = errNotRegular
	}
	if err != nil {
		f.Close()
		return nil, 0, fileErr("read log", path, err)
	}
	return f, fi.Size(), nil
}

// VerifyRecord decodes one record strictly and checks its signature with
// k. It checks nothing about the record's place in a log.
func VerifyRecord(data []byte, k *key.Verifying) (Record, error) {
	if err := checkVerifying(k); err != nil {
		return Record{}, err
	}
	rec, input, err := decode(data)
	if err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if rec.Alg != k.Alg() {
		return Record{}, fmt.Errorf("%w: record %s, key %s", ErrWrongAlg, rec.Alg, k.Alg())
	}
	if !k.Verify(input, rec.Sig) {
		return Record{}, errors.New("chain: record signature does not verify")
	}
	return rec, nil
}

// Repair drops a torn tail from the log at path, under the log's exclusive
// lock, and reports exactly what it dropped. It first replays the whole
// log with key for origin (as [Verify] does): when the log verifies it
// changes nothing and returns [Torn]{Offset: size}; when the log ends in an
// incomplete record after records that all verify, and no complete,
// well-formed record starts anywhere after that record's first byte (see
// [BreakError]), it truncates the file at that record's offset, syncs it,
// and returns the offset and byte count dropped. Otherwise (a complete
// record does not verify, or a record is cut short or damaged with a
// complete record after it) it changes nothing and returns the
// *BreakError, which names the damaged record's index and offset: that
// needs a person, not a repair.
func Repair(path string, k *key.Verifying, origin string) (Torn, error) {
	if err := checkVerifying(k); err != nil {
		return Torn{}, err
	}
	if err := checkOrigin(origin); err != nil {
		return Torn{}, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return Torn{}, fileErr("open log", path, err)
	}
	defer f.Close()
	if err := lockFile(f, true); err != nil {
		return Torn{}, fileErr("lock log", path, err)
	}
	defer unlockFile(f)
	fi, err := f.Stat()
	if err != nil {
		return Torn{}, fileErr("stat log", path, err)
	}
	size := fi.Size()
	v := newReplayer(k, origin)
	v.merkle = false
	_, err = v.run(io.NewSectionReader(f, 0, size))
	var be *BreakError
	switch {
	case err == nil:
		return Torn{Offset: size}, nil
	case !errors.As(err, &be) || !be.Torn:
		return Torn{}, err
	}
	if err := f.Truncate(be.Offset); err != nil {
		return Torn{}, fileErr("truncate log", path, err)
	}
	if err := f.Sync(); err != nil {
		return Torn{}, fileErr("sync log", path, err)
	}
	return Torn{Offset: be.Offset, Bytes: size - be.Offset}, nil
}
