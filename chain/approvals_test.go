package chain

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// allFields is a record with every field, approvals included (FORMAT.md
// §1: 17 pairs, head 0xb1).
func allFields(n int) Record {
	r := fullRecord(0)
	r.Kind = KindAllowed
	for i := range n {
		a := Approval{KeyID: "pricing-lead"}
		a.ID[0], a.ID[31] = byte(i+1), 0xee
		r.Approvals = append(r.Approvals, a)
	}
	return r
}

// TestApprovalsField: field 17 (FORMAT.md §1, §1.1) round trips, signs and
// verifies; the record has 17 pairs (head 0xb1), and its signature pair
// stands before field 17's, keys ascending. Appended to a log, it
// verifies with the rest.
func TestApprovalsField(t *testing.T) {
	for name, sk := range testKeys(t) {
		r := allFields(2)
		r.Time, r.Prev, r.Alg = t0, OriginHash(testOrigin), sk.Alg()
		b := seal(t, sk, r)
		if b[0] != 0xb1 {
			t.Fatalf("%s: head %#x, want 0xb1", name, b[0])
		}
		in, err := r.SigningInput()
		if err != nil || in[len(recordDomain)] != 0xb0 {
			t.Fatalf("%s: signing input head %x, %v", name, in[len(recordDomain):][:1], err)
		}
		got, err := VerifyRecord(b, sk.Verifying())
		// ... 0x10 0x58 len sig, then 0x11 [2 approvals]: the last pair.
		appAt := bytes.LastIndex(b, []byte{0x11, 0x82, 0x82, 0x6c})
		sigAt := appAt - 3 - len(got.Sig)
		if appAt < 0 || !bytes.Equal(b[sigAt:appAt], append([]byte{0x10, 0x58, byte(len(got.Sig))}, got.Sig...)) {
			t.Fatalf("%s: the signature pair does not stand before field 17", name)
		}
		if err != nil || !reflect.DeepEqual(got.Approvals, r.Approvals) {
			t.Fatalf("%s: %v %+v", name, err, got.Approvals)
		}
		if again, err := got.Marshal(); err != nil || !bytes.Equal(again, b) {
			t.Fatalf("%s: re-encoding differs: %v", name, err)
		}
		// In a log, between records without the field.
		log, path := openTemp(t, sk)
		for i, rec := range []Record{fullRecord(0), allFields(MaxApprovals), fullRecord(1)} {
			if _, err := log.Append(rec, t0.Add(time.Duration(i)*time.Second)); err != nil {
				t.Fatalf("%s: append %d: %v", name, i, err)
			}
		}
		log.Close()
		if s, err := Verify(path, sk.Verifying(), testOrigin); err != nil || s.Count != 3 {
			t.Fatalf("%s: verify: %+v %v", name, s, err)
		}
	}
}

// TestApprovalsStrict: a field 17 out of FORMAT.md §1's bounds is
// malformed: empty (it must be left out), an entry that is not [tstr,
// bstr .size 32], an empty key id, nine entries.
func TestApprovalsStrict(t *testing.T) {
	sk := seedKey(t, "k", 1)
	r := allFields(1)
	r.Time, r.Prev = t0, OriginHash(testOrigin)
	b := seal(t, sk, r)
	at := bytes.LastIndex(b, []byte{0x11, 0x81})
	id := "5820" + strings.Repeat("ab", 32)
	for name, field := range map[string]string{
		"empty":          "11 80",
		"31-byte id":     "11 81 82 61 6b 581f" + strings.Repeat("ab", 31),
		"33-byte id":     "11 81 82 61 6b 5821" + strings.Repeat("ab", 33),
		"empty key id":   "11 81 82 60" + id,
		"three items":    "11 81 83 61 6b" + id + "00",
		"not an array":   "11 a0",
		"nine approvals": "11 89" + strings.Repeat("82 61 6b"+id, 9),
	} {
		f, err := hex.DecodeString(strings.ReplaceAll(field, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		bad := append(bytes.Clone(b[:at]), f...)
		if _, err := Decode(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Decode error %v, want ErrMalformed", name, err)
		}
	}
	if _, err := Decode(b); err != nil {
		t.Fatal(err)
	}
}

// TestTornTailBeforeB1: a map cut short (a byte string of 4095 bytes
// announced) holding a complete record of 17 pairs is a broken log, not a
// torn tail: 0xb1 is a record-like head (FORMAT.md §2), so the complete
// record inside the cut is found.
func TestTornTailBeforeB1(t *testing.T) {
	sk := seedKey(t, "k", 1)
	recs := makeRecords(t, sk, testOrigin, 3)
	r := allFields(2)
	r.Seq, r.Time, r.Prev = 3, t0.Add(time.Hour), Hash(recs[2])
	full := seal(t, sk, r)
	data := append(join(recs), 0xa1, 0x01, 0x59, 0x0f, 0xff)
	data = append(data, full...)
	_, err := VerifyBytes(data, sk.Verifying(), testOrigin)
	wantBreak(t, err, 3, false)
}
