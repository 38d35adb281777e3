package vecgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/tickettool/tickettool/chain"
)

// built is a valid log as the generator built it.
type built struct {
	name    string
	records [][]byte
	offsets []int64
	log     []byte
	cp      string
}

func fields(r chain.Record) RecordFields {
	return RecordFields{Seq: r.Seq, TimeMS: r.Time.UnixMilli(), Kind: r.Kind.String(),
		Ticket: hex.EncodeToString(r.TicketID), Family: hex.EncodeToString(r.FamilyID), Block: r.Block,
		Tool: r.Tool, Op: r.Op, Subjects: r.Subjects, Check: r.Check, Caveat: r.Caveat, Reason: r.Reason, Note: r.Note,
		Prev: hex.EncodeToString(r.Prev[:]), Alg: algName(r.Alg), Sig: hex.EncodeToString(r.Sig), Approvals: approvalFields(r.Approvals)}
}

func approvalFields(as []chain.Approval) []ApprovalField {
	var out []ApprovalField
	for _, a := range as {
		out = append(out, ApprovalField{KeyID: a.KeyID, ID: hex.EncodeToString(a.ID[:])})
	}
	return out
}

// validLog builds the valid log signed with key and its checkpoint.
func (g *rgen) validLog(key string) *built {
	b := &built{name: key + "/valid"}
	l := ReceiptLog{Name: b.name, Key: key,
		Description: "a valid log: every kind of record at least once (captured and released included), two records sharing a time"}
	prev := sha256.Sum256([]byte("tickettool/v1 receipt origin\x00" + ReceiptOrigin))
	var last int64
	for i, r := range receiptRecords() {
		r.Seq, r.Prev = uint64(i), prev
		input, rec := g.sign(key, &r)
		h := sha256.Sum256(rec)
		l.Records = append(l.Records, ReceiptRecord{Offset: int64(len(b.log)), Fields: fields(r),
			SigningInput: hex.EncodeToString(input), Bytes: hex.EncodeToString(rec), Hash: hex.EncodeToString(h[:])})
		b.offsets = append(b.offsets, int64(len(b.log)))
		b.records = append(b.records, rec)
		b.log = append(b.log, rec...)
		prev, last = h, r.Time.UnixMilli()
	}
	root := merkleRoot(b.records)
	l.LogHex = hex.EncodeToString(b.log)
	l.Summary = ReceiptSummary{Count: int64(len(b.records)), Size: int64(len(b.log)),
		Head: hex.EncodeToString(prev[:]), Root: hex.EncodeToString(root[:]), LastTimeMS: last}
	if g.err != nil {
		return b
	}
	cp, err := chain.SignCheckpoint(chain.Checkpoint{Origin: ReceiptOrigin, Size: int64(len(b.records)), Root: root, Head: prev}, g.keys[key])
	g.fail(err)
	b.cp, l.Checkpoint = string(cp), string(cp)
	g.fail(g.file.RunLog(&l))
	g.file.Logs = append(g.file.Logs, l)
	return b
}

// tampered adds the damaged copies of b, each with the break its
// construction dictates (never read back from package chain); the
// generator then checks package chain reports exactly that.
func (g *rgen) tampered(key string, b *built) {
	if g.err != nil {
		return
	}
	n := int64(len(b.records))
	join := func(rs ...[]byte) []byte { return bytes.Join(rs, nil) }
	brk := func(i int64, torn bool) *ReceiptBreak {
		return &ReceiptBreak{Index: i, Offset: b.offsets[i], Torn: torn}
	}
	var add adder = func(name, desc, k string, log []byte, cp string, e ReceiptExpect) {
		c := ReceiptCase{Name: key + "/" + name, Description: desc, Key: k, LogHex: hex.EncodeToString(log), Checkpoint: cp, Expect: e}
		if err := g.file.RunCase(&c, ""); err != nil {
			g.fail(fmt.Errorf("vecgen: %s: %w", c.Name, err))
		}
		g.file.Cases = append(g.file.Cases, c)
	}
	head := func(rs [][]byte) string { h := sha256.Sum256(rs[len(rs)-1]); return hex.EncodeToString(h[:]) }

	add("checkpoint-ok", "the valid log against its own checkpoint", key, b.log, b.cp,
		ReceiptExpect{Count: n, Head: head(b.records), Checkpoint: "ok", ScanRecords: n})

	flip := slices.Clone(b.log)
	flip[b.offsets[3]-1] ^= 0x01 // the last byte of record 2: its signature
	add("flipped-signature", "the last signature byte of record 2 flipped", key, flip, "",
		ReceiptExpect{Break: brk(2, false), ScanRecords: n})

	changed := slices.Clone(b.log)
	at := bytes.Index(b.records[3], []byte("\x69read_file"))
	changed[b.offsets[3]+int64(at)+3] = 'e' // tool "read_file" becomes "reed_file"
	add("changed-field", "record 3's tool changed from read_file to reed_file (same length, still canonical)", key, changed, "",
		ReceiptExpect{Break: brk(3, false), ScanRecords: n})

	rs := b.records
	swapped := join(append(append(slices.Clone(rs[:4]), rs[5], rs[4]), rs[6:]...)...)
	add("reordered", "records 4 and 5 swapped: record 5 stands at index 4", key, swapped, "",
		ReceiptExpect{Break: brk(4, false), ScanRecords: n})

	removed := join(append(slices.Clone(rs[:4]), rs[5:]...)...)
	add("removed", "record 4 removed from the middle: record 5 stands at index 4", key, removed, "",
		ReceiptExpect{Break: brk(4, false), ScanRecords: n - 1})

	last := rs[n-1]
	torn := join(append(slices.Clone(rs[:n-1]), last[:len(last)/2])...)
	add("torn-tail", "the last record cut short after half its bytes, as a crash mid-append leaves it", key, torn, "",
		ReceiptExpect{Break: brk(n-1, true), ScanRecords: n - 1})

	zeros := append(slices.Clone(b.log), make([]byte, 64)...)
	add("zero-tail", "64 zero bytes after the last record, as some file systems leave a crash mid-append", key, zeros, "",
		ReceiptExpect{Break: &ReceiptBreak{Index: n, Offset: int64(len(b.log)), Torn: true}, ScanRecords: n})

	short := join(rs[:n-1]...)
	add("shorter-than-checkpoint", "the last record removed: the chain verifies, the checkpoint of the whole log shows the truncation", key, short, b.cp,
		ReceiptExpect{Count: n - 1, Head: head(rs[:n-1]), Checkpoint: "truncated", ScanRecords: n - 1})

	// Records 6.. re-signed after a changed record 5: a valid chain under
	// the right key, which only the checkpoint shows was rewritten.
	recs := receiptRecords()
	recs[5].Reason = "not in tools"
	fork := append(slices.Clone(rs[:5]), g.chainRecords(key, recs[5:], sha256.Sum256(rs[4]), 5)...)
	add("rewritten", "record 5 changed and the chain re-signed from there with the right key: it verifies, the checkpoint shows the fork", key, join(fork...), b.cp,
		ReceiptExpect{Count: n, Head: head(fork), Checkpoint: "forked", ScanRecords: n})

	other := key + "-other"
	add("wrong-key", "verified with another key of the same algorithm and name", other, b.log, "",
		ReceiptExpect{Break: brk(0, false), ScanRecords: n})
	wrongAlg := map[string]string{"ed25519": "hmac", "hmac": "ed25519"}[key]
	add("wrong-algorithm", "verified with a key of the other algorithm: the record's alg is not the key's", wrongAlg, b.log, "",
		ReceiptExpect{Break: brk(0, false), ScanRecords: n})

	g.tails(key, b, add, brk)
	g.checkpoints(key, b, add)
	g.emptySubject(key, add)
	if key == "ed25519" {
		g.sizes(key, b, add)
	}
}

// adder adds a case named <key>/name.
type adder func(name, desc, k string, log []byte, cp string, e ReceiptExpect)
