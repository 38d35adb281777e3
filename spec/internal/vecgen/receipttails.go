package vecgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/tickettool/tickettool/chain"
)

// tails adds the cases that pin the torn-tail rule of chain/FORMAT.md §2:
// a map cut short only while its bytes are a canonical prefix, no complete
// record after it, and exactly 8 record-like offsets examined.
func (g *rgen) tails(kid string, b *built, add adder, brk func(int64, bool) *ReceiptBreak) {
	n := int64(len(b.records))
	rs := b.records
	last := rs[n-1]
	if last[1] != 0x01 || last[2] >= 0x18 {
		g.fail(fmt.Errorf("vecgen: %s: the last record does not start with a one-byte seq", kid))
		return
	}
	noKey := slices.Concat(slices.Concat(rs[:n-1]...), last[:3], []byte{0xff})
	add("cut-then-no-key", "the last record cut after its map head and seq, then a byte 0xff that cannot start a map key: "+
		"not a map cut short (its bytes are no canonical prefix), so broken, not torn", kid, noKey, "",
		ReceiptExpect{Break: brk(n-1, false), ScanRecords: n - 1})

	// Record n-2's signature length raised to 255: it runs into record
	// n-1 and is cut short by the end of the file, but record n-1, a
	// complete record, starts inside it.
	swallow := slices.Clone(rs[n-2])
	sig := len(swallow) - b.sigLen(kid) - 2
	if swallow[sig] != 0x58 || int(swallow[sig+1])+len(last) >= 0xff {
		g.fail(fmt.Errorf("vecgen: %s: cannot build the swallowed-record case", kid))
		return
	}
	swallow[sig+1] = 0xff
	add("swallowed-record", fmt.Sprintf("record %d's signature length changed to 255, so that it claims record %d's bytes and is cut short ", n-2, n-1)+
		"by the end of the file: a complete record starts inside it, so broken, not torn", kid,
		slices.Concat(slices.Concat(rs[:n-2]...), swallow, last), "", ReceiptExpect{Break: brk(n-2, false), ScanRecords: n - 2})

	// A map cut short (a byte string of 4095 bytes announced) holding k
	// record-like offsets (a6 01 00), none of which starts a record.
	for _, k := range []int{8, 9} {
		tail := append([]byte{0xa1, 0x01, 0x59, 0x0f, 0xff}, bytes.Repeat([]byte{0xa6, 0x01, 0x00}, k)...)
		name, verdict := "eight-record-like", "torn: 8 is the bound, and none starts a record"
		if k == 9 {
			name, verdict = "nine-record-like", "broken: more record-like offsets than the 8 a verifier examines"
		}
		add(name, fmt.Sprintf("after the last record, a map cut short that holds %d record-like offsets (a6 01 00): %s", k, verdict),
			kid, slices.Concat(b.log, tail), "",
			ReceiptExpect{Break: &ReceiptBreak{Index: n, Offset: int64(len(b.log)), Torn: k == 8}, ScanRecords: n})
	}

	// The same map cut short, holding a complete record of 17 pairs (head
	// b1, the record of the valid log that has every field): b1 is a
	// record-like head, so the record is found and the log is broken.
	all := slices.IndexFunc(receiptRecords(), func(r chain.Record) bool { return r.Note == "a record with all 17 fields" })
	if full := rs[all]; all >= 0 && full[0] == 0xb1 {
		tail := append([]byte{0xa1, 0x01, 0x59, 0x0f, 0xff}, full...)
		add("record-like-b1", "after the last record, a map cut short that holds a complete record of 17 pairs (head b1): "+
			"b1 is a record-like head, so broken, not torn", kid, slices.Concat(b.log, tail), "",
			ReceiptExpect{Break: &ReceiptBreak{Index: n, Offset: int64(len(b.log)), Torn: false}, ScanRecords: n})
	} else {
		g.fail(fmt.Errorf("vecgen: %s: record %d is not the one with all 17 fields", kid, all))
	}
}

// sigLen is the signature length of key's records.
func (b *built) sigLen(kid string) int {
	if strings.HasPrefix(kid, "hmac") {
		return 32
	}
	return 64
}

// checkpoints adds checkpoint cases that open or do not: cosigned (extra
// signature lines are ignored), another origin, another key.
func (g *rgen) checkpoints(kid string, b *built, add adder) {
	n := int64(len(b.records))
	c, err := chain.OpenCheckpoint([]byte(b.cp), g.keys[kid].Verifying(), ReceiptOrigin)
	if err != nil {
		g.fail(err)
		return
	}
	h := sha256.Sum256(b.records[n-1])
	ok := ReceiptExpect{Count: n, Head: hex.EncodeToString(h[:]), ScanRecords: n}
	other := kid + "-other"
	byOther, err := chain.SignCheckpoint(c, g.keys[other])
	g.fail(err)
	body, ownSig, _ := strings.Cut(b.cp, "\n\n")
	_, otherSig, _ := strings.Cut(string(byOther), "\n\n")
	cosigned := ok
	cosigned.Checkpoint = "ok"
	add("checkpoint-cosigned", "the valid log against its checkpoint signed first by another key of the same name, then by the log's key: "+
		"signature lines of other keys are ignored", kid, b.log, body+"\n\n"+otherSig+ownSig, cosigned)

	invalid := ok
	invalid.Checkpoint = "invalid"
	add("checkpoint-other-key", "the valid log against its checkpoint signed only by another key of the same name: no signature by the log's key, invalid",
		kid, b.log, string(byOther), invalid)
	oc := c
	oc.Origin = "example.com/receipts/agent-2"
	byKey, err := chain.SignCheckpoint(oc, g.keys[kid])
	g.fail(err)
	add("checkpoint-other-origin", "the valid log against a checkpoint with its size, root and head, signed by its key, "+
		"but for origin example.com/receipts/agent-2: invalid (not ok, truncated or forked)", kid, b.log, string(byKey), invalid)
}

// emptySubject adds a valid one-record log whose subjects hold an empty
// string: an entry may be empty, only an empty array is left out.
func (g *rgen) emptySubject(kid string, add adder) {
	recs := receiptRecords()
	r := recs[3]
	r.Time, r.Subjects = ReceiptBase, []string{"", "src/discount/rules.go"}
	log := g.chainRecords(kid, []chain.Record{r}, sha256.Sum256([]byte("tickettool/v1 receipt origin\x00"+ReceiptOrigin)), 0)
	if len(log) != 1 || !bytes.Contains(log[0], []byte{0x09, 0x82, 0x60}) {
		g.fail(fmt.Errorf("vecgen: %s: empty subject not encoded as 09 82 60", kid))
		return
	}
	h := sha256.Sum256(log[0])
	add("empty-subject", "one record whose subjects are an empty string and a path: it verifies", kid, log[0], "",
		ReceiptExpect{Count: 1, Head: hex.EncodeToString(h[:]), ScanRecords: 1})
}

// sizes adds the cases at the size limits: a record of 16384 bytes and
// one of 16385, and 16383 and 16384 zero bytes after the valid log.
func (g *rgen) sizes(kid string, b *built, add adder) {
	n := int64(len(b.records))
	for _, size := range []int{16384, 16385} {
		rec := g.recordOfSize(kid, size)
		if rec == nil {
			return
		}
		if size == 16384 {
			h := sha256.Sum256(rec)
			add("record-16384", "one record of exactly 16384 bytes, the largest: it verifies", kid, rec, "",
				ReceiptExpect{Count: 1, Head: hex.EncodeToString(h[:]), ScanRecords: 1})
			continue
		}
		add("record-16385", "one record of 16385 bytes, validly signed: over the limit, broken (never torn)", kid, rec, "",
			ReceiptExpect{Break: &ReceiptBreak{Index: 0, Offset: 0}, ScanRecords: 0})
	}
	for _, z := range []int{16383, 16384} {
		add(fmt.Sprintf("zero-tail-%d", z), fmt.Sprintf("%d zero bytes after the last record: %s", z,
			map[bool]string{true: "torn (at most 16383)", false: "broken (a torn tail is at most 16383 bytes)"}[z < 16384]),
			kid, slices.Concat(b.log, make([]byte, z)), "",
			ReceiptExpect{Break: &ReceiptBreak{Index: n, Offset: int64(len(b.log)), Torn: z < 16384}, ScanRecords: n})
	}
}

// recordOfSize returns a validly signed first record of exactly size bytes
// (15 subjects of 1024 bytes and a note of the length that fits).
func (g *rgen) recordOfSize(kid string, size int) []byte {
	subjects := make([]string, 15)
	for i := range subjects {
		subjects[i] = fmt.Sprintf("src/%02d/", i) + strings.Repeat("a", 1024-len("src/00/"))
	}
	for note := 0; note <= chain.MaxNoteBytes; note++ {
		r := chain.Record{Time: ReceiptBase, Kind: chain.KindOther, Subjects: subjects, Note: strings.Repeat("n", note),
			Prev: sha256.Sum256([]byte("tickettool/v1 receipt origin\x00" + ReceiptOrigin))}
		_, rec := g.signRaw(kid, &r)
		if len(rec) == size {
			return rec
		}
	}
	g.fail(fmt.Errorf("vecgen: no record of %d bytes", size))
	return nil
}
