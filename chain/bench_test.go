package chain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"testing"

	"github.com/tickettool/tickettool/key"
)

func benchKeys(b *testing.B) map[string]*key.Signing { return testKeys(b) }

// BenchmarkAppend appends one record per operation, fsync included.
func BenchmarkAppend(b *testing.B) {
	for name, sk := range benchKeys(b) {
		b.Run(name, func(b *testing.B) {
			l, _ := openTemp(b, sk)
			r := fullRecord(1)
			for b.Loop() {
				if _, err := l.Append(r, t0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkAppendBatch appends 64 records per operation with one fsync.
func BenchmarkAppendBatch(b *testing.B) {
	const size = 64
	sk := seedKey(b, "k", 1)
	l, _ := openTemp(b, sk)
	batch := make([]Record, size)
	for i := range batch {
		batch[i] = fullRecord(i)
	}
	for b.Loop() {
		if _, err := l.AppendBatch(batch, t0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "records/s")
}

const benchRecords = 1000

// BenchmarkVerify replays a log of 1000 records per operation (decode,
// re-encode check, signature, links, Merkle hashes).
func BenchmarkVerify(b *testing.B) {
	for name, sk := range benchKeys(b) {
		b.Run(name, func(b *testing.B) {
			data := join(makeRecords(b, sk, testOrigin, benchRecords))
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := VerifyBytes(data, sk.Verifying(), testOrigin); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*benchRecords)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkSHA256PlusSig is the floor for BenchmarkVerify/ed25519: per
// record, one SHA-256 of its bytes and one Ed25519 verification.
func BenchmarkSHA256PlusSig(b *testing.B) {
	sk := seedKey(b, "k", 1)
	pub := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)).Public().(ed25519.PublicKey) // seedKey's
	recs := makeRecords(b, sk, testOrigin, benchRecords)
	type pre struct{ msg, sig []byte }
	ps := make([]pre, len(recs))
	for i, r := range recs {
		rec, input, err := decode(r)
		if err != nil {
			b.Fatal(err)
		}
		ps[i] = pre{input, rec.Sig}
	}
	for b.Loop() {
		for i, r := range recs {
			sha256.Sum256(r)
			if !ed25519.Verify(pub, ps[i].msg, ps[i].sig) {
				b.Fatal("bad signature")
			}
		}
	}
	b.ReportMetric(float64(b.N*benchRecords)/b.Elapsed().Seconds(), "records/s")
}
