package bench

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// The receipt log's targets, as pairs: opening a log and appending one
// record, a 100,000-record log ÷ an empty one; the Guard with receipts, 8
// concurrent callers ÷ 1; receipt report ÷ receipt verify of a
// 100,000-record log (reportpage_test.go); chain.Verify of a log on both
// cores ÷ on one.

const (
	receiptOrigin  = "bench.example/receipts"
	bigLogRecords  = 100000
	verifyRecords  = 4000 // 100,000 would make one operation ≈ 8 s here
	groupCallers   = 8
	receiptsBatchN = 1000 // records per AppendBatch while filling a log
	// ioBatch is the wall time of one batch of a side that fsyncs: a
	// few dozen fsyncs of a few milliseconds.
	ioBatch = 250 * time.Millisecond
)

// receiptKey is a fixed Ed25519 receipt key, as `tickettool keygen`
// makes for --receipt-key.
func receiptKey(tb testing.TB) *key.Signing {
	return must(key.NewEd25519("receipts", ed25519.NewKeyFromSeed(fixedBytes(ed25519.SeedSize, 8))))(tb)
}

// receiptRecord is a decision record like the Guard's for the scenario.
func receiptRecord() chain.Record {
	return chain.Record{Kind: chain.KindAllowed, TicketID: fixedBytes(16, 9), FamilyID: fixedBytes(16, 10), Block: 3,
		Tool: inScope.Tool, Op: inScope.Op, Subjects: []string{inScope.Path}}
}

// fillLog creates a log of n records at path.
func fillLog(tb testing.TB, path string, sk *key.Signing, n int) {
	l := must(chain.Open(path, sk, receiptOrigin))(tb)
	defer l.Close()
	batch := make([]chain.Record, receiptsBatchN)
	for i := range batch {
		batch[i] = receiptRecord()
	}
	for n > 0 {
		k := min(n, len(batch))
		must(l.AppendBatch(batch[:k], t0))(tb)
		n -= k
	}
}

// openAppend is one process's use of a log: open it, append one record,
// close it.
func openAppend(path string, sk *key.Signing) error {
	l, err := chain.Open(path, sk, receiptOrigin)
	if err != nil {
		return err
	}
	if _, err := l.Append(receiptRecord(), t0); err != nil {
		l.Close()
		return err
	}
	return l.Close()
}

// receiptPairs returns the receipt log's pairs, with their logs in a
// temporary directory on the disk that holds the temporary directory
// (fsync must reach a device: not a tmpfs).
func receiptPairs(tb testing.TB) []pair {
	dir := tb.TempDir()
	sk := receiptKey(tb)
	empty, big, small := filepath.Join(dir, "empty.log"), filepath.Join(dir, "big.log"), filepath.Join(dir, "verify.log")
	fillLog(tb, big, sk, bigLogRecords)
	fillLog(tb, small, sk, verifyRecords)
	pub := sk.Verifying()
	verifyLog := func() error { _, err := chain.Verify(small, pub, receiptOrigin); return err }
	return []pair{
		{group: groupTargets, name: fmt.Sprintf("open a log + append one record: %d records ÷ empty", bigLogRecords),
			a: serial("open+append, empty log", func() error {
				if err := os.Remove(empty); err != nil && !os.IsNotExist(err) {
					return err
				}
				return openAppend(empty, sk)
			}),
			b:    serial(fmt.Sprintf("open+append, %d-record log", bigLogRecords), func() error { return openAppend(big, sk) }),
			wall: true, batch: ioBatch, target: &target{text: "≤ 1.2×", limit: 1.2}},
		guardPair(tb, dir),
		reportPair(tb, dir),
		{group: groupTargets, name: fmt.Sprintf("receipt verify (chain.Verify, %d records): GOMAXPROCS 2 ÷ 1, throughput", verifyRecords),
			a: withProcs(1, serial("chain.Verify, GOMAXPROCS 1", verifyLog)), b: withProcs(2, serial("chain.Verify, GOMAXPROCS 2", verifyLog)),
			wall: true, speedup: true, target: &target{text: "≥ 1.7×", limit: 1.7, atLeast: true}},
	}
}

// withProcs runs s's batches with GOMAXPROCS set to procs.
func withProcs(procs int, s side) side {
	run := s.run
	s.run = func(n int) error {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return run(n)
	}
	return s
}

// guardPair: Guard.Check of the scenario's HMAC ticket with receipts (one
// durable record per decision), 8 concurrent callers ÷ 1, throughput.
func guardPair(tb testing.TB, dir string) pair {
	tt := newTickettool(tb, key.HMACSHA256, false)
	tk := must(token.Parse(string(must(tt.mint())(tb))))(tb)
	req := ttRequest(inScope)
	check := func(name string) func() error {
		log := must(chain.Open(filepath.Join(dir, name+".log"), receiptKey(tb), receiptOrigin))(tb)
		tb.Cleanup(func() { log.Close() })
		g := must(guard.New(guard.Config{Keys: tt.keys, Receipts: log}))(tb)
		return func() error {
			d, err := g.Verify(context.Background(), tk, req, t0)
			if err != nil {
				return err
			}
			return d.Err()
		}
	}
	return pair{group: groupTargets, name: fmt.Sprintf("Guard with receipts: %d concurrent callers ÷ 1, decisions per second", groupCallers),
		a: serial("Guard.Check, 1 caller", check("one")), b: callers(groupCallers, "Guard.Check, 8 callers", check("eight")),
		wall: true, speedup: true, batch: ioBatch, target: &target{text: "≥ 3×", limit: 3, atLeast: true}}
}
