package bench

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/report"
)

// maxPageBytes is the target's bound on the page of a 100,000-record log.
const maxPageBytes = 2 << 20

// reportRecords are a session's kinds of record, in the order a guard
// writes them, cycled to fill the report pair's log: a ticket minted and
// delegated, calls allowed (with their request ids), captured, released
// and refused, an approval.
func reportRecords() []chain.Record {
	fam, sub := fixedBytes(16, 10), fixedBytes(16, 9)
	allowed := func(n int) chain.Record {
		return chain.Record{Kind: chain.KindAllowed, TicketID: sub, FamilyID: fam, Block: 1, Tool: inScope.Tool, Op: inScope.Op,
			Subjects: []string{fmt.Sprintf("src/discount/f%d.go", n)}, Note: fmt.Sprintf("request %032x", n)}
	}
	settled := func(k chain.Kind, n int) chain.Record {
		return chain.Record{Kind: k, TicketID: sub, FamilyID: fam, Block: 1, Note: fmt.Sprintf("request %032x", n)}
	}
	approved := allowed(9)
	approved.Approvals = []chain.Approval{{KeyID: "pricing-lead", ID: [32]byte{9}}}
	return []chain.Record{
		{Kind: chain.KindMinted, TicketID: fam, FamilyID: fam, Note: "tools=read_file,write_file paths=src/discount/ calls=1000000"},
		{Kind: chain.KindDelegated, TicketID: sub, FamilyID: fam, Block: 1, Note: "tools=read_file calls=500000"},
		allowed(1), settled(chain.KindCaptured, 1), allowed(2), settled(chain.KindReleased, 2), allowed(3),
		{Kind: chain.KindRefused, TicketID: sub, FamilyID: fam, Block: 1, Tool: "write_file", Op: "invoke",
			Subjects: []string{"src/discount/rules.go"}, Check: "caveat", Caveat: "tools", Reason: "tool write_file is not in tools=read_file"},
		approved, settled(chain.KindCaptured, 9),
	}
}

// reportPair: `receipt report` (report.Build, which runs chain.VerifyFile,
// and the page written) ÷ `receipt verify` (chain.VerifyFile) of one
// 100,000-record log, wall time. The log is HMAC-signed: its signatures
// are the cheapest to check, so the report's own work weighs most there
// (an Ed25519 log takes ≈8 s a verify here, mostly signatures). The page
// must stay under 2 MB.
func reportPair(tb testing.TB, dir string) pair {
	sk := must(key.NewHMAC("receipts", fixedBytes(key.HMACBytes, 11)))(tb)
	path := filepath.Join(dir, "report.log")
	l := must(chain.Open(path, sk, receiptOrigin))(tb)
	recs := reportRecords()
	for done := 0; done < bigLogRecords; {
		batch := make([]chain.Record, 0, receiptsBatchN)
		for len(batch) < cap(batch) && done+len(batch) < bigLogRecords {
			batch = append(batch, recs[(done+len(batch))%len(recs)])
		}
		must(l.AppendBatch(batch, t0))(tb)
		done += len(batch)
	}
	if err := l.Close(); err != nil {
		tb.Fatal(err)
	}
	vk := sk.Verifying()
	var size countingWriter
	page := func(w io.Writer) error {
		r, err := report.Build(path, report.Options{Key: vk, Origin: receiptOrigin})
		if err != nil {
			return err
		}
		if !r.Verdict.OK || r.Verdict.Records != bigLogRecords {
			return fmt.Errorf("report: %+v", r.Verdict)
		}
		return r.WriteHTML(w)
	}
	if err := page(&size); err != nil {
		tb.Fatal(err)
	}
	if size >= maxPageBytes {
		tb.Fatalf("the page of a %d-record log is %d bytes, want under %d", bigLogRecords, size, maxPageBytes)
	}
	return pair{group: groupTargets,
		name: fmt.Sprintf("receipt report ÷ receipt verify, %d-record HMAC log (page %d KiB, under 2 MiB)", bigLogRecords, size>>10),
		a: serial("receipt verify: chain.VerifyFile", func() error {
			_, err := chain.VerifyFile(path, vk, receiptOrigin, chain.VerifyOptions{})
			return err
		}),
		b:    serial("receipt report: report.Build + WriteHTML", func() error { return page(io.Discard) }),
		wall: true, target: &target{text: "≤ 1.5×", limit: 1.5}}
}

// countingWriter counts the bytes written to it.
type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
