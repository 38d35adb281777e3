package chain

import (
	"bytes"
	"testing"

	"github.com/tickettool/tickettool/key"
)

// fuzzKey is a fixed HMAC key, so that seeds are valid records. The fuzz
// bodies verify with it only: the parsing and replay paths are the same for
// both algorithms, and an Ed25519 verification per input makes the
// fuzzer's minimisation crawl.
var fuzzKey = func() *key.Signing {
	k, err := key.NewHMAC("fuzz", bytes.Repeat([]byte{1}, key.HMACBytes)) // = hmacKey(t, "fuzz", 1)
	if err != nil {
		panic(err)
	}
	return k
}()

// FuzzDecodeRecord and FuzzVerifyLog live in ../fuzz, with more
// properties (the torn-tail brute force included); this file keeps the
// targets that suite does not have.

func FuzzParseCheckpoint(f *testing.F) {
	k := fuzzKey
	sum, err := VerifyBytes(join(makeRecords(f, k, testOrigin, 3)), k.Verifying(), testOrigin)
	if err != nil {
		f.Fatal(err)
	}
	cp, _ := SignCheckpoint(sum.Checkpoint(), k)
	f.Add(cp)
	f.Add([]byte(sum.Checkpoint().Text()))
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, err := ParseCheckpoint(string(b)); err == nil && c.Text() != string(b) {
			t.Fatal("accepted checkpoint text re-formats differently")
		}
		OpenCheckpoint(b, fuzzKey.Verifying(), testOrigin)
	})
}
