package fuzz

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// sampleRecords are one record of each kind, as a guard would write them.
func sampleRecords() []chain.Record {
	tid := bytes.Repeat([]byte{0x11}, 32)
	fid := bytes.Repeat([]byte{0x22}, 16)
	return []chain.Record{
		{Kind: chain.KindIntent, Note: "upgrade the pricing dependency"},
		{Kind: chain.KindMinted, TicketID: tid, FamilyID: fid, Note: "tools=read_file"},
		{Kind: chain.KindDelegated, TicketID: tid, FamilyID: fid, Block: 1},
		{Kind: chain.KindAllowed, TicketID: tid, FamilyID: fid, Block: 2, Tool: "workspace/read_file", Op: "invoke",
			Subjects: []string{"src/discount/rules.go", "https://api.example.com/v1/prices"}},
		{Kind: chain.KindRefused, TicketID: tid, FamilyID: fid, Block: 2, Tool: "write_file", Op: "invoke",
			Subjects: []string{"src/refund/x.go"}, Check: "caveat", Caveat: "paths", Reason: "src/refund/x.go is not under src/discount/"},
		{Kind: chain.KindOther, Note: "ünïcödé \"quoted\"\nsecond line"},
	}
}

// buildLog appends recs with key to a new log for origin (one second
// apart from now) and returns the file's bytes.
func buildLog(key *key.Signing, org string, recs []chain.Record) []byte {
	dir := must(os.MkdirTemp("", "tickettool-fuzz-"))
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "receipts.cbor")
	l := must(chain.Open(path, key, org))
	for i, r := range recs {
		must(l.Append(r, now.Add(time.Duration(i)*time.Second)))
	}
	if err := l.Close(); err != nil {
		panic(err)
	}
	return must(os.ReadFile(path))
}

// splitLog returns the records of a log we wrote.
func splitLog(data []byte) [][]byte {
	var out [][]byte
	for e, err := range chain.Scan(bytes.NewReader(data)) {
		if err != nil {
			panic(err)
		}
		out = append(out, e.Bytes)
	}
	return out
}

type fixedLog struct {
	key  *key.Signing
	data []byte
	cp   []byte // a signed checkpoint of data
	sum  chain.Checkpoint
}

// fixedLogs: the sample records in an Ed25519 log and in an HMAC log.
var fixedLogs = func() []fixedLog {
	var ls []fixedLog
	for _, k := range []*key.Signing{keys.logEd, keys.logHMAC} {
		data := buildLog(k, origin, sampleRecords())
		sum := must(chain.VerifyBytes(data, k.Verifying(), origin))
		ls = append(ls, fixedLog{k, data, must(chain.SignCheckpoint(sum.Checkpoint(), k)), sum.Checkpoint()})
	}
	return ls
}()

func logKeys() []*key.Signing { return []*key.Signing{keys.logEd, keys.logHMAC} }

// FuzzDecodeRecord fuzzes chain.Decode on one receipt record. Properties:
//   - a refusal matches ErrMalformed;
//   - accepted: r.Marshal() == input; Decode is deterministic; the record
//     is within the limits (kind, alg and signature size, ids, subjects,
//     block, time, UTF-8 text); SigningInput and MarshalJSON succeed;
//     String is one line (no raw CR or LF: text is quoted);
//   - VerifyRecord under a fixed key accepts only a record of that key's
//     algorithm and returns the same record;
//   - allocation stays within the stated bound (sampled).
func FuzzDecodeRecord(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		sampleAllocs(t, "chain.Decode", len(data), func() { chain.Decode(data) })
		r, err := chain.Decode(data)
		if err != nil {
			if !errors.Is(err, chain.ErrMalformed) {
				t.Fatalf("Decode error %v does not match ErrMalformed", err)
			}
			return
		}
		checkRecord(t, r, data)
		if r2, err := chain.Decode(data); err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("Decode is not deterministic: %v", err)
		}
		for _, k := range logKeys() {
			v, err := chain.VerifyRecord(data, k.Verifying())
			if err != nil {
				continue
			}
			if v.Alg != k.Alg() || !reflect.DeepEqual(v, r) {
				t.Fatalf("VerifyRecord under a %v key accepted a %v record %+v", k.Alg(), v.Alg, v)
			}
		}
	})
}

func checkRecord(t *testing.T, r chain.Record, data []byte) {
	t.Helper()
	m, err := r.Marshal()
	if err != nil || !bytes.Equal(m, data) {
		t.Fatalf("accepted record %x re-encodes to %x, %v", data, m, err)
	}
	sigLen := map[key.Alg]int{key.Ed25519: 64, key.HMACSHA256: 32}[r.Alg]
	switch {
	case len(data) > chain.MaxRecordBytes:
		t.Fatalf("accepted a record of %d bytes", len(data))
	case r.Kind < chain.KindIntent || r.Kind > chain.KindReleased:
		t.Fatalf("accepted kind %d", r.Kind)
	case sigLen == 0 || len(r.Sig) != sigLen:
		t.Fatalf("accepted alg %v with a %d-byte signature", r.Alg, len(r.Sig))
	case len(r.TicketID) > chain.MaxIDBytes || len(r.FamilyID) > chain.MaxIDBytes || len(r.Subjects) > chain.MaxSubjects:
		t.Fatalf("accepted ids of %d/%d bytes, %d subjects", len(r.TicketID), len(r.FamilyID), len(r.Subjects))
	case r.Block < 0 || r.Block > chain.MaxBlock:
		t.Fatalf("accepted block %d", r.Block)
	case r.Time.UnixMilli() < 0 || r.Time.UnixMilli() > chain.MaxTimeMillis || r.Time.Location() != time.UTC:
		t.Fatalf("accepted time %v", r.Time)
	case len(r.Note) > chain.MaxNoteBytes || len(r.Reason) > chain.MaxReasonBytes:
		t.Fatalf("accepted note of %d, reason of %d bytes", len(r.Note), len(r.Reason))
	}
	for _, s := range append([]string{r.Tool, r.Op, r.Check, r.Caveat, r.Reason, r.Note}, r.Subjects...) {
		if !utf8.ValidString(s) {
			t.Fatalf("accepted invalid UTF-8 %q", s)
		}
	}
	for _, s := range append([]string{r.Tool, r.Op, r.Check, r.Caveat}, r.Subjects...) {
		if len(s) > chain.MaxNameBytes {
			t.Fatalf("accepted a name of %d bytes", len(s))
		}
	}
	if _, err := r.SigningInput(); err != nil {
		t.Fatalf("SigningInput of an accepted record: %v", err)
	}
	if _, err := r.MarshalJSON(); err != nil {
		t.Fatalf("MarshalJSON of an accepted record: %v", err)
	}
	if s := r.String(); strings.ContainsAny(s, "\r\n") {
		t.Fatalf("String of a record spans lines: %q", s)
	}
}

// FuzzVerifyLog fuzzes chain.VerifyBytes on whole receipt logs under the
// fixed Ed25519 and HMAC receipt keys and the fixed origin. Properties:
//   - VerifyBytes is deterministic;
//   - a refusal is a *BreakError matching ErrBroken, within the input
//     (0 <= Offset <= len, Index >= 0), and the log before the break
//     verifies, with Index records: it stops at the first break; or a
//     *KeyError (not ErrBroken) when the first record decodes and no
//     record verifies under the key;
//   - accepted: the summary covers all bytes; Scan sees Count records, each
//     of which re-encodes to itself, verifies under the key and has the
//     sequence number of its position; Head is the last record's hash (or
//     the origin hash); a checkpoint of the summary signs, opens to the same
//     checkpoint, and verifies against the log; the log without its last
//     record is refused against that checkpoint as truncated;
//   - the fixed valid log (which: Ed25519 or HMAC) with any single byte
//     changed does not verify, and unchanged it does;
//   - allocation stays within the stated bound (sampled).
func FuzzVerifyLog(f *testing.F) {
	// Seeds beside the generated corpus (testdata): torn and damaged
	// tails, and record 0 with its prev head's byte string changed to a
	// text string.
	for _, fl := range fixedLogs {
		d := fl.data
		f.Add(d[:len(d)-7], byte(0), uint32(0), byte(0))
		f.Add(append(d[:len(d):len(d)], make([]byte, 5)...), byte(0), uint32(0), byte(0))
		if i := bytes.Index(d, []byte{0x0e, 0x58}); i >= 0 {
			bad := append([]byte(nil), d...)
			bad[i+1] = 0x59
			f.Add(bad, byte(0), uint32(0), byte(0))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which byte, off uint32, x byte) {
		sampleAllocs(t, "chain.VerifyBytes", len(data), func() { chain.VerifyBytes(data, keys.logEd.Verifying(), origin) })
		for _, k := range logKeys() {
			sum, err := chain.VerifyBytes(data, k.Verifying(), origin)
			sum2, err2 := chain.VerifyBytes(data, k.Verifying(), origin)
			if !reflect.DeepEqual(sum, sum2) || !reflect.DeepEqual(err, err2) {
				t.Fatalf("VerifyBytes is not deterministic: %v / %v", err, err2)
			}
			if err != nil {
				checkBreak(t, data, k, err)
				continue
			}
			checkVerifiedLog(t, data, k, sum)
		}
		fl := pick(fixedLogs, which)
		m, changed := mutate(fl.data, uint64(off), x)
		if _, err := chain.VerifyBytes(m, fl.key.Verifying(), origin); changed && err == nil {
			t.Fatalf("%v log with byte %d ^ %#x verifies", fl.key.Alg(), int(off)%len(fl.data), x)
		} else if !changed && err != nil {
			t.Fatalf("fixed %v log does not verify: %v", fl.key.Alg(), err)
		}
	})
}

func checkBreak(t *testing.T, data []byte, k *key.Signing, err error) {
	t.Helper()
	var ke *chain.KeyError
	if errors.As(err, &ke) {
		checkWrongKey(t, data, k, err)
		return
	}
	var be *chain.BreakError
	if !errors.As(err, &be) || !errors.Is(err, chain.ErrBroken) {
		t.Fatalf("VerifyBytes error %v (%T) is not a *BreakError", err, err)
	}
	if be.Offset < 0 || be.Offset > int64(len(data)) || be.Index < 0 || (be.Torn && !errors.Is(err, chain.ErrTorn)) {
		t.Fatalf("break out of range or inconsistent: %+v (input %d bytes)", be, len(data))
	}
	sum, perr := chain.VerifyBytes(data[:be.Offset], k.Verifying(), origin)
	if perr != nil || sum.Count != be.Index {
		t.Fatalf("log before the break (%+v) does not verify with %d records: %v", be, be.Index, perr)
	}
	if be.Torn {
		checkNothingAfterTorn(t, data, be.Offset)
	}
}

// checkNothingAfterTorn checks the torn-tail rule (chain/FORMAT.md §2) by
// brute force: no record that Decode accepts starts anywhere after the
// torn record's first byte.
func checkNothingAfterTorn(t *testing.T, data []byte, off int64) {
	t.Helper()
	for i := int(off) + 1; i < len(data); i++ {
		n, err := wire.ItemLen(data[i:], wire.RecordLimits())
		if err != nil {
			continue
		}
		if _, err := chain.Decode(data[i : i+n]); err == nil {
			t.Fatalf("torn tail at offset %d, yet a complete record starts at offset %d", off, i)
		}
	}
}

// checkWrongKey: a *KeyError is no break, and is given only when the first
// record decodes and no record Scan reads verifies under the key.
func checkWrongKey(t *testing.T, data []byte, k *key.Signing, err error) {
	t.Helper()
	if errors.Is(err, chain.ErrBroken) || !errors.Is(err, chain.ErrWrongKey) {
		t.Fatalf("KeyError %v matches ErrBroken or not ErrWrongKey", err)
	}
	n := 0
	for e, serr := range chain.Scan(bytes.NewReader(data)) {
		if serr != nil {
			break
		}
		if _, verr := chain.VerifyRecord(e.Bytes, k.Verifying()); verr == nil {
			t.Fatalf("%v, but record %d verifies under the key", err, e.Index)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("%v, but the first record does not decode", err)
	}
}

func checkVerifiedLog(t *testing.T, data []byte, k *key.Signing, sum *chain.Summary) {
	t.Helper()
	if sum.Size != int64(len(data)) || sum.Origin != origin {
		t.Fatalf("verified %d of %d bytes, origin %q", sum.Size, len(data), sum.Origin)
	}
	var n int64
	var last []byte
	for e, err := range chain.Scan(bytes.NewReader(data)) {
		if err != nil {
			t.Fatalf("Scan fails on a verified log: %v", err)
		}
		checkRecord(t, e.Record, e.Bytes)
		if _, err := chain.VerifyRecord(e.Bytes, k.Verifying()); err != nil || e.Record.Seq != uint64(n) || e.Index != n {
			t.Fatalf("record %d of a verified log: seq %d, %v", n, e.Record.Seq, err)
		}
		last = e.Bytes
		n++
	}
	want := chain.OriginHash(origin)
	if last != nil {
		want = chain.Hash(last)
	}
	if n != sum.Count || sum.Head != want {
		t.Fatalf("Scan saw %d records, Verify %d; head %x, want %x", n, sum.Count, sum.Head, want)
	}
	cp, err := chain.SignCheckpoint(sum.Checkpoint(), k)
	if err != nil {
		t.Fatalf("SignCheckpoint: %v", err)
	}
	if c, err := chain.OpenCheckpoint(cp, k.Verifying(), origin); err != nil || c != sum.Checkpoint() {
		t.Fatalf("checkpoint does not open to itself: %+v, %v", c, err)
	}
	if _, err := chain.VerifyCheckpointBytes(data, cp, k.Verifying(), origin); err != nil {
		t.Fatalf("verified log does not verify against its checkpoint: %v", err)
	}
	if last != nil {
		short := data[:len(data)-len(last)]
		if _, err := chain.VerifyCheckpointBytes(short, cp, k.Verifying(), origin); !errors.Is(err, chain.ErrTruncated) {
			t.Fatalf("log without its last record against the checkpoint: %v, want ErrTruncated", err)
		}
	}
}

// FuzzCheckpoint fuzzes chain.ParseCheckpoint (the note text) and
// chain.OpenCheckpoint (the signed note) under the fixed receipt keys and
// origin. Properties:
//   - ParseCheckpoint accepts only the one text of a checkpoint:
//     c.Text() == input;
//   - a refusal by OpenCheckpoint matches ErrCheckpoint;
//   - OpenCheckpoint is deterministic and accepts only a note of at most
//     MaxCheckpointBytes for the expected origin (never for another),
//     whose text is exactly c.Text() followed by the signature block;
//   - the fixed signed checkpoint (which: Ed25519 or HMAC) with any single
//     byte changed opens to nothing or to the very same checkpoint (a
//     change never alters what it states), and unchanged it opens;
//   - allocation stays within the stated bound (sampled).
func FuzzCheckpoint(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, which byte, off uint16, x byte) {
		sampleAllocs(t, "chain.OpenCheckpoint", len(data), func() {
			chain.ParseCheckpoint(string(data))
			chain.OpenCheckpoint(data, keys.logEd.Verifying(), origin)
		})
		if c, err := chain.ParseCheckpoint(string(data)); err == nil {
			if c.Text() != string(data) {
				t.Fatalf("ParseCheckpoint accepted %q, which formats as %q", data, c.Text())
			}
		} else if !errors.Is(err, chain.ErrCheckpoint) {
			t.Fatalf("ParseCheckpoint error %v does not match ErrCheckpoint", err)
		}
		for _, k := range logKeys() {
			c, err := chain.OpenCheckpoint(data, k.Verifying(), origin)
			c2, err2 := chain.OpenCheckpoint(data, k.Verifying(), origin)
			if c != c2 || (err == nil) != (err2 == nil) {
				t.Fatalf("OpenCheckpoint is not deterministic: %v / %v", err, err2)
			}
			if err != nil {
				if !errors.Is(err, chain.ErrCheckpoint) {
					t.Fatalf("OpenCheckpoint error %v does not match ErrCheckpoint", err)
				}
				continue
			}
			if c.Origin != origin || len(data) > chain.MaxCheckpointBytes || !bytes.HasPrefix(data, []byte(c.Text()+"\n")) {
				t.Fatalf("OpenCheckpoint accepted %q as %+v", data, c)
			}
			if p, err := chain.ParseCheckpoint(c.Text()); err != nil || p != c {
				t.Fatalf("opened checkpoint's text does not parse to it: %v", err)
			}
			if _, err := chain.OpenCheckpoint(data, k.Verifying(), origin+"x"); err == nil {
				t.Fatal("checkpoint opens for another origin")
			}
		}
		fl := pick(fixedLogs, which)
		m, changed := mutate(fl.cp, uint64(off), x)
		c, err := chain.OpenCheckpoint(m, fl.key.Verifying(), origin)
		if !changed && (err != nil || c != fl.sum) {
			t.Fatalf("fixed %v checkpoint does not open: %v", fl.key.Alg(), err)
		}
		if changed && err == nil && c != fl.sum {
			t.Fatalf("%v checkpoint with byte %d ^ %#x opens to a different checkpoint %+v", fl.key.Alg(), int(off)%len(fl.cp), x, c)
		}
	})
}
