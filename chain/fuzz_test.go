package chain

import (
	"bytes"
	"testing"
)

// fuzzKeys returns fixed keys, so that seeds are valid records: both
// kinds for building seeds, and HMAC first. The fuzz bodies verify with the
// HMAC key only: the parsing and replay paths are the same for both, and an
// Ed25519 verification per input makes the fuzzer's minimisation crawl.
func fuzzKeys(t testing.TB) []*Key {
	return []*Key{hmacKey(t, "fuzz", 1), seedKey(t, "fuzz", 1)}
}

var fuzzKey = func() *Key {
	k, err := NewHMACKey("fuzz", bytes.Repeat([]byte{1}, HMACKeySize)) // = hmacKey(t, "fuzz", 1)
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
	sum, err := VerifyBytes(join(makeRecords(f, k, testOrigin, 3)), k, testOrigin)
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
		OpenCheckpoint(b, fuzzKey, testOrigin)
	})
}

func FuzzParseKey(f *testing.F) {
	for _, k := range fuzzKeys(f) {
		s, _ := FormatKey(k)
		f.Add(s)
		s, _ = FormatKey(k.VerifierKey())
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			return
		}
		if again, _ := FormatKey(k); again != s && again != s+"\n" {
			t.Fatal("accepted key re-formats differently")
		}
	})
}
