package wire

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

// fullRecord has every field (chain/FORMAT.md §1).
func fullRecord() Record {
	return Record{Seq: 5, Time: 1766000000000, Kind: 2, TicketID: []byte{1, 0xaa}, FamilyID: []byte{2}, Block: 3,
		Tool: "test", Op: "op", Subjects: []string{"x", "y"}, Check: "c", Caveat: "p", Reason: "r", Note: "not",
		Prev: make([]byte, 32), Alg: 1, Sig: []byte(strings.Repeat("\x11", 32)),
		Approvals: []RecordApproval{{KeyID: "lead", ID: bytes.Repeat([]byte{7}, 32)}}}
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadRecord(t *testing.T) {
	w := fullRecord()
	data, err := Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecord(data)
	if err != nil || !reflect.DeepEqual(got, w) {
		t.Fatalf("ReadRecord = %+v, %v; want %+v", got, err, w)
	}
	data[len(data)-1] = 0 // the result owns its bytes
	if got.Sig[31] != 0x11 {
		t.Fatal("ReadRecord aliases its input")
	}
	for _, c := range []struct{ hex, why string }{
		{"a0", ""}, // no field: the caller's to refuse
		{"a1 12 00", "unknown field 18"},
		{"a1 11 00", "wrong CBOR type"},
		{"a1 11 81 81 61 61", "wrong CBOR type"},
		{"a1 11 81 83 61 61 41 00 00", "wrong CBOR type"},
		{"a1 11 81 82 41 61 41 00", "wrong CBOR type"},
		{"a1 11 81 82 61 61 41 00", ""}, // sizes are the caller's
		{"a2 02 00 01 00", "canonical order"},
		{"a1 03 190100", "larger than 255"},
		{"a1 07 41 61", "wrong CBOR type"},
		{"a1 09 81 81 61 61", "wrong CBOR type"},
		{"a1 01 1800", "shortest form"},
		{"a1 01 00 00", "trailing bytes"},
		{"81 00", "wrong CBOR type"},
	} {
		_, err := ReadRecord(mustHex(t, c.hex))
		if (err == nil) != (c.why == "") || err != nil && !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want %q", c.hex, err, c.why)
		}
	}
	if _, err := ReadRecord(make([]byte, MaxRecordBytes+1)); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("a record over the limit: %v", err)
	}
}

// FuzzReadRecordMatchesReference holds ReadRecord to fxamacker's decoder
// of the same struct (Unmarshal): what ReadRecord accepts the reference
// accepts, to the same fields; what only the reference accepts is not the
// one encoding of what it decoded (fxamacker also takes, say, an array of
// small integers for a byte string), which chain refuses after decoding.
func FuzzReadRecordMatchesReference(f *testing.F) {
	full, _ := Marshal(fullRecord())
	f.Add(full)
	for _, h := range []string{"a0", "a10300", "a103190100", "a109818161", "a20200 0100", "a1116100"} {
		b, _ := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err1 := ReadRecord(data)
		var want Record
		err2 := Unmarshal(data, &want, RecordLimits())
		if err1 == nil && err2 != nil {
			t.Fatalf("%x: ReadRecord accepted, reference %v", data, err2)
		}
		if err1 != nil && err2 == nil {
			if again, err := Marshal(want); err == nil && bytes.Equal(again, data) {
				t.Fatalf("%x: ReadRecord %v, reference accepted its one encoding", data, err1)
			}
			return
		}
		if err1 == nil && !reflect.DeepEqual(norm(got), norm(want)) {
			t.Fatalf("%x: ReadRecord %+v, reference %+v", data, got, want)
		}
	})
}

// norm makes empty slices nil, where the two decoders may differ.
func norm(w Record) Record {
	for _, p := range []*[]byte{&w.TicketID, &w.FamilyID, &w.Prev, &w.Sig} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	if len(w.Subjects) == 0 {
		w.Subjects = nil
	}
	if len(w.Approvals) == 0 {
		w.Approvals = nil
	}
	for i := range w.Approvals {
		if len(w.Approvals[i].ID) == 0 {
			w.Approvals[i].ID = nil
		}
	}
	return w
}
