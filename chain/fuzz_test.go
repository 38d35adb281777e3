package chain

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/tickettool/tickettool/internal/strictcbor"
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

func FuzzDecodeRecord(f *testing.F) {
	for _, k := range fuzzKeys(f) {
		for _, b := range makeRecords(f, k, testOrigin, 2) {
			f.Add(b)
		}
		f.Add(seal(f, k, Record{Kind: KindIntent, Time: t0}))
	}
	f.Add([]byte{0xa6, 0x01, 0x00})
	f.Add([]byte{0xbf, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not match ErrMalformed", err)
			}
			return
		}
		again, err := r.Marshal()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("accepted record re-encodes differently: %v", err)
		}
		VerifyRecord(b, fuzzKey)
	})
}

func FuzzVerifyLog(f *testing.F) {
	for _, k := range fuzzKeys(f) {
		recs := makeRecords(f, k, testOrigin, 3)
		f.Add(join(recs))
		f.Add(join(recs)[:len(join(recs))-7])
		f.Add(append(join(recs[:1]), make([]byte, 5)...))
		bad := join(recs) // record 0's prev head 0x58 to 0x59: issue #13 point 6
		bad[bytes.Index(bad, []byte{0x0e, 0x58})+1] = 0x59
		f.Add(bad)
		f.Add(slices.Concat(join(recs[:1]), recs[1][:9], recs[1]))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		sum, err := VerifyBytes(data, fuzzKey, testOrigin)
		if err != nil {
			var be *BreakError
			if errors.As(err, &be) && (be.Offset < 0 || be.Offset > int64(len(data)) || be.Index < 0) {
				t.Fatalf("break out of range: %+v", be)
			}
			if be != nil && be.Torn {
				checkNothingAfterTorn(t, data, be.Offset)
			}
		} else {
			if sum.Size != int64(len(data)) {
				t.Fatalf("verified %d of %d bytes", sum.Size, len(data))
			}
			var n int64
			for e, err := range Scan(bytes.NewReader(data)) {
				if err != nil {
					t.Fatalf("Scan fails on a verified log: %v", err)
				}
				if again, _ := e.Record.Marshal(); !bytes.Equal(again, e.Bytes) {
					t.Fatal("verified record re-encodes differently")
				}
				n++
			}
			if n != sum.Count {
				t.Fatalf("Scan saw %d records, Verify %d", n, sum.Count)
			}
		}
		for range Scan(bytes.NewReader(data)) {
		}
	})
}

// checkNothingAfterTorn checks the torn-tail rule by brute force: no
// record that Decode accepts starts anywhere after the torn record's first
// byte.
func checkNothingAfterTorn(t *testing.T, data []byte, off int64) {
	for i := int(off) + 1; i < len(data); i++ {
		n, err := strictcbor.ItemLen(data[i:], strictcbor.RecordLimits())
		if err != nil {
			continue
		}
		if _, err := Decode(data[i : i+n]); err == nil {
			t.Fatalf("torn tail at offset %d, yet a complete record starts at offset %d", off, i)
		}
	}
}

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
