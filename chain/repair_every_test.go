package chain

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Exhaustive and boundary checks of the torn-tail rule (see
// repair_test.go).

// TestRepairEveryCut: for every cut of a valid log, Repair leaves it
// alone (a cut on a record boundary) or drops exactly the partial last
// record.
func TestRepairEveryCut(t *testing.T) {
	sk := hmacKey(t, "k", 3)
	recs := makeRecords(t, sk, testOrigin, 3)
	data := join(recs)
	at := append(offsets(recs), len(data))
	p := filepath.Join(t.TempDir(), "log")
	for cut := 0; cut <= len(data); cut++ {
		if err := os.WriteFile(p, data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		keep := 0
		for _, o := range at {
			if o <= cut {
				keep = o
			}
		}
		d, err := Repair(p, sk.Verifying(), testOrigin)
		if err != nil || d.Offset != int64(keep) || d.Bytes != int64(cut-keep) {
			t.Fatalf("cut %d: Repair = %+v, %v; want offset %d, %d bytes", cut, d, err, keep, cut-keep)
		}
		if got, _ := os.ReadFile(p); !bytes.Equal(got, data[:keep]) {
			t.Fatalf("cut %d: %d bytes left, want %d", cut, len(got), keep)
		}
	}
}

// TestRepairEverySingleByteChange: a changed byte anywhere in any record
// but the last never makes Repair drop a byte, nor Verify, Scan or Open
// call the log torn (Open decodes only the first and the last record).
// Each byte is changed in four ways, among them the ones that
// turn a one-byte length into a longer one (0x58 to 0x59, 0x78 to 0x7a).
func TestRepairEverySingleByteChange(t *testing.T) {
	sk := hmacKey(t, "k", 3)
	recs := makeRecords(t, sk, testOrigin, 3)
	data := join(recs)
	lastOff := len(data) - len(recs[len(recs)-1])
	p := filepath.Join(t.TempDir(), "log")
	for i := range lastOff {
		b := data[i]
		for _, v := range []byte{b ^ 0x01, b ^ 0x80, b&0xe0 | 0x19, b&0xe0 | 0x1a} {
			if v == b {
				continue
			}
			bad := slices.Clone(data)
			bad[i] = v
			if err := os.WriteFile(p, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			d, err := Repair(p, sk.Verifying(), testOrigin)
			if err == nil || errors.Is(err, ErrTorn) || d != (Torn{}) {
				t.Fatalf("byte %d %#x to %#x: Repair = %+v, %v; want a refusal", i, b, v, d, err)
			}
			if got, _ := os.ReadFile(p); !bytes.Equal(got, bad) {
				t.Fatalf("byte %d %#x to %#x: Repair changed the file", i, b, v)
			}
			if _, err := VerifyBytes(bad, sk.Verifying(), testOrigin); errors.Is(err, ErrTorn) {
				t.Fatalf("byte %d %#x to %#x: Verify: %v", i, b, v, err)
			}
			if l, err := Open(p, sk, testOrigin); err == nil {
				l.Close()
			} else if errors.Is(err, ErrTorn) {
				t.Fatalf("byte %d %#x to %#x: Open: %v", i, b, v, err)
			}
			for _, err := range Scan(bytes.NewReader(bad)) {
				if errors.Is(err, ErrTorn) {
					t.Fatalf("byte %d %#x to %#x: Scan: %v", i, b, v, err)
				}
			}
		}
	}
}

// TestRecordAfterBounded: the search for a record after damage tries at
// most maxRecordProbes record-like offsets, whatever the bytes, and a
// record beyond that many decoys counts as found (fail closed).
func TestRecordAfterBounded(t *testing.T) {
	sk := hmacKey(t, "k", 3)
	rec := makeRecords(t, sk, testOrigin, 1)[0]
	decoy := []byte{0xa6, 0x01, 0x00, 0x02} // a record's first bytes, cut short
	cases := []struct {
		name string
		b    []byte
		want int
	}{
		{"empty", nil, -1},
		{"a record", rec, 0},
		{"a record 1 byte short", rec[:len(rec)-1], -1},
		{"a record after 1 byte", slices.Concat([]byte{0}, rec), 1},
		{"a record after probes-1 decoys", slices.Concat(bytes.Repeat(decoy, maxRecordProbes-1), rec), (maxRecordProbes - 1) * len(decoy)},
		{"probes decoys only", bytes.Repeat(decoy, maxRecordProbes), -1},
		{"probes+1 decoys only", bytes.Repeat(decoy, maxRecordProbes+1), -2},
		{"a record after probes decoys", slices.Concat(bytes.Repeat(decoy, maxRecordProbes), rec), -2},
	}
	for _, c := range cases {
		if got := recordAfter(c.b); got != c.want {
			t.Errorf("%s: recordAfter = %d, want %d", c.name, got, c.want)
		}
	}
}
