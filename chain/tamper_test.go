package chain

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

// fieldMutations change one field of a record each.
var fieldMutations = map[string]func(*Record){
	"seq":      func(r *Record) { r.Seq++ },
	"time":     func(r *Record) { r.Time = r.Time.Add(time.Millisecond) },
	"kind":     func(r *Record) { r.Kind = KindAllowed },
	"ticket":   func(r *Record) { r.TicketID = append(slices.Clone(r.TicketID), 0) },
	"family":   func(r *Record) { r.FamilyID = nil },
	"block":    func(r *Record) { r.Block = 1 },
	"tool":     func(r *Record) { r.Tool = "workspace/write_file" },
	"op":       func(r *Record) { r.Op = "delegate" },
	"subjects": func(r *Record) { r.Subjects = r.Subjects[:1] },
	"check":    func(r *Record) { r.Check = "" },
	"caveat":   func(r *Record) { r.Caveat = "tools" },
	"reason":   func(r *Record) { r.Reason += "!" },
	"note":     func(r *Record) { r.Note = "" },
	"prev":     func(r *Record) { r.Prev[0] ^= 1 },
	"sig":      func(r *Record) { r.Sig = slices.Clone(r.Sig); r.Sig[5] ^= 0x10 },
	"approvals": func(r *Record) {
		if len(r.Approvals) == 0 {
			r.Approvals = []Approval{{KeyID: "pricing-lead"}}
		} else {
			r.Approvals = slices.Clone(r.Approvals)
			r.Approvals[0].ID[0] ^= 1
		}
	},
}

func TestTamperEveryField(t *testing.T) {
	for name, sk := range testKeys(t) {
		other := seedKey(t, "test-key", 8)
		if sk.Alg() == key.HMACSHA256 {
			other = hmacKey(t, "test-key", 8)
		}
		recs := makeRecords(t, sk, testOrigin, 4)
		for _, k := range []int{0, 2, 3} {
			orig, err := Decode(recs[k])
			if err != nil {
				t.Fatal(err)
			}
			for field, mutate := range fieldMutations {
				r := orig
				mutate(&r)
				// The attacker keeps the old signature...
				b, err := r.Marshal()
				if err != nil {
					t.Fatalf("%s %s: %v", name, field, err)
				}
				forged := slices.Clone(recs)
				forged[k] = b
				_, err = VerifyBytes(join(forged), sk.Verifying(), testOrigin)
				if be := wantBreak(t, err, int64(k), false); !strings.Contains(be.Reason, "signature") {
					t.Errorf("%s record %d %s: reason %q", name, k, field, be.Reason)
				}
				// ...or signs with a key of their own.
				forged[k] = seal(t, other, r)
				_, err = VerifyBytes(join(forged), sk.Verifying(), testOrigin)
				wantBreak(t, err, int64(k), false)
			}
			// The algorithm: a record signed by a key of the other type.
			wrong := hmacKey(t, "test-key", 7)
			if sk.Alg() == key.HMACSHA256 {
				wrong = seedKey(t, "test-key", 7)
			}
			forged := slices.Clone(recs)
			forged[k] = seal(t, wrong, orig)
			_, err = VerifyBytes(join(forged), sk.Verifying(), testOrigin)
			if be := wantBreak(t, err, int64(k), false); !strings.Contains(be.Reason, "algorithm") {
				t.Errorf("%s: alg reason %q", name, be.Reason)
			}
		}
		if _, err := VerifyBytes(join(recs), sk.Verifying(), testOrigin); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDroppedDuplicatedReordered(t *testing.T) {
	sk := seedKey(t, "k", 3)
	r := makeRecords(t, sk, testOrigin, 5)
	cases := []struct {
		name  string
		recs  [][]byte
		index int64
		why   string
	}{
		{"drop first", [][]byte{r[1], r[2], r[3], r[4]}, 0, "sequence"},
		{"drop middle", [][]byte{r[0], r[1], r[3], r[4]}, 2, "sequence"},
		{"duplicate", [][]byte{r[0], r[1], r[1], r[2], r[3], r[4]}, 2, "sequence"},
		{"duplicate last", [][]byte{r[0], r[1], r[2], r[3], r[4], r[4]}, 5, "sequence"},
		{"swap", [][]byte{r[0], r[2], r[1], r[3], r[4]}, 1, "sequence"},
		{"reverse", [][]byte{r[4], r[3], r[2], r[1], r[0]}, 0, "sequence"},
	}
	for _, c := range cases {
		_, err := VerifyBytes(join(c.recs), sk.Verifying(), testOrigin)
		if be := wantBreak(t, err, c.index, false); !strings.Contains(be.Reason, c.why) {
			t.Errorf("%s: reason %q", c.name, be.Reason)
		}
		if be := err.(*BreakError); be.Offset != int64(len(join(c.recs[:c.index]))) {
			t.Errorf("%s: offset %d", c.name, be.Offset)
		}
	}
}

func TestRecordFromAnotherLog(t *testing.T) {
	sk := seedKey(t, "k", 3)
	a := makeRecords(t, sk, testOrigin, 4)
	b := makeRecords(t, sk, "example.com/receipts/other", 4)
	for k := range a {
		mixed := slices.Clone(a)
		mixed[k] = b[k]
		_, err := VerifyBytes(join(mixed), sk.Verifying(), testOrigin)
		if be := wantBreak(t, err, int64(k), false); !strings.Contains(be.Reason, "prev") {
			t.Errorf("record %d: reason %q", k, be.Reason)
		}
	}
	_, err := VerifyBytes(join(b), sk.Verifying(), testOrigin)
	if be := wantBreak(t, err, 0, false); !strings.Contains(be.Reason, "origin") {
		t.Errorf("reason %q", be.Reason)
	}
}

func TestFlipEveryByte(t *testing.T) {
	for name, sk := range testKeys(t) {
		data := join(makeRecords(t, sk, testOrigin, 2))
		for off := range data {
			for _, mask := range []byte{0x01, 0xff} {
				bad := slices.Clone(data)
				bad[off] ^= mask
				if _, err := VerifyBytes(bad, sk.Verifying(), testOrigin); !errors.Is(err, ErrBroken) {
					t.Fatalf("%s: flip %#x at %d: error %v", name, mask, off, err)
				}
			}
		}
	}
}

func TestTornEveryLength(t *testing.T) {
	for name, sk := range testKeys(t) {
		recs := makeRecords(t, sk, testOrigin, 3)
		good := join(recs[:2])
		last := recs[2]
		for cut := 1; cut < len(last); cut++ {
			data := append(slices.Clone(good), last[:cut]...)
			_, err := VerifyBytes(data, sk.Verifying(), testOrigin)
			be := wantBreak(t, err, 2, true)
			if be.Offset != int64(len(good)) || !errors.Is(err, ErrTorn) || !errors.Is(err, ErrBroken) {
				t.Fatalf("%s cut %d: %+v", name, cut, be)
			}
			if cut > 3 && cut < len(last)-3 && cut%16 != 0 {
				continue // the file round trip below, for a sample of lengths
			}
			p := writeLog(t, data)
			if _, err := Open(p, sk, testOrigin); !errors.Is(err, ErrTorn) {
				t.Fatalf("%s cut %d: Open error %v, want ErrTorn", name, cut, err)
			}
			dropped, err := Repair(p, sk.Verifying(), testOrigin)
			if err != nil || dropped != (Torn{Offset: int64(len(good)), Bytes: int64(cut)}) {
				t.Fatalf("%s cut %d: Repair = %+v, %v", name, cut, dropped, err)
			}
			if sum, err := Verify(p, sk.Verifying(), testOrigin); err != nil || sum.Count != 2 {
				t.Fatalf("%s cut %d: after Repair: %v", name, cut, err)
			}
			if got, _ := os.ReadFile(p); !bytes.Equal(got, good) {
				t.Fatalf("%s cut %d: Repair changed the good records", name, cut)
			}
		}
	}
}

func TestRepairOnlyTornTails(t *testing.T) {
	sk := seedKey(t, "k", 3)
	recs := makeRecords(t, sk, testOrigin, 2)
	good := join(recs)
	// A clean log: nothing dropped.
	p := writeLog(t, good)
	if d, err := Repair(p, sk.Verifying(), testOrigin); err != nil || d != (Torn{Offset: int64(len(good))}) {
		t.Fatalf("clean: %+v %v", d, err)
	}
	// Zero bytes after the last record (a power loss on some file systems).
	p = writeLog(t, append(slices.Clone(good), make([]byte, 100)...))
	if d, err := Repair(p, sk.Verifying(), testOrigin); err != nil || d != (Torn{Offset: int64(len(good)), Bytes: 100}) {
		t.Fatalf("zeros: %+v %v", d, err)
	}
	// Garbage that is not the start of a record is a break, not a tear;
	// so is a map head followed by bytes no record prefix holds (a key that
	// can be none), however many pairs the head announces.
	for _, tail := range [][]byte{{0x5a, 0xff}, {0x01}, {0x9f}, {0xa6, 0xff}, {0xaf, 0x01, 0x02, 0x40}, {0xa6, 0x01, 0x00, 0x01, 0x00}} {
		p = writeLog(t, append(slices.Clone(good), tail...))
		d, err := Repair(p, sk.Verifying(), testOrigin)
		wantBreak(t, err, 2, false)
		if st, _ := os.Stat(p); d != (Torn{}) || st.Size() != int64(len(good)+len(tail)) {
			t.Fatalf("tail % x: Repair changed the file", tail)
		}
	}
	// A torn tail after a broken record: Repair refuses.
	bad := slices.Clone(recs[1])
	bad[10] ^= 1
	p = writeLog(t, append(append(slices.Clone(recs[0]), bad...), recs[1][:5]...))
	if _, err := Repair(p, sk.Verifying(), testOrigin); !errors.Is(err, ErrBroken) || errors.Is(err, ErrTorn) {
		t.Fatalf("broken then torn: %v", err)
	}
}

// TestWrongKey: a log checked or appended with another key than its own
// is reported as a *KeyError naming the key (ErrWrongKey, ErrWrongAlg for
// the other algorithm), not as tampering; a log whose first record was
// changed, checked with its own key, is still a break at record 0.
func TestWrongKey(t *testing.T) {
	ed, mac := seedKey(t, "k", 3), hmacKey(t, "k", 3)
	cases := []struct {
		sign, other *key.Signing
		public      bool // verify with other's public half only
		alg         bool
	}{
		{ed, seedKey(t, "other", 4), false, false},
		{ed, mac, false, true},
		{mac, hmacKey(t, "k", 4), false, false},
		{mac, ed, true, true},
	}
	for _, c := range cases {
		verify := c.other.Verifying()
		for _, n := range []int{1, 3} {
			recs := makeRecords(t, c.sign, testOrigin, n)
			_, err := VerifyBytes(join(recs), verify, testOrigin)
			var ke *KeyError
			if !errors.As(err, &ke) || errors.Is(err, ErrBroken) || errors.Is(err, ErrWrongAlg) != c.alg {
				t.Fatalf("%v with %v, %d records: %v", c.sign, verify, n, err)
			}
			if want := keyName(verify); ke.Key != want || !strings.Contains(err.Error(), want) {
				t.Errorf("%v: names key %q, want %q", err, ke.Key, want)
			}
			if ke.LogAlg != c.sign.Alg() || ke.KeyAlg != verify.Alg() {
				t.Errorf("%v: algorithms %v, %v", err, ke.LogAlg, ke.KeyAlg)
			}
			if !c.public {
				p := writeLog(t, join(recs))
				if _, err := Open(p, c.other, testOrigin); !errors.As(err, &ke) {
					t.Errorf("Open %v with %v: %v", c.sign, c.other, err)
				}
			}
			// Record 0 changed: the key is the log's (a later record
			// verifies), so it is a break, not a wrong key.
			if n > 1 {
				bad := slices.Clone(recs[0])
				bad[len(bad)-1] ^= 1 // the signature's last byte
				data := join(append([][]byte{bad}, recs[1:]...))
				_, err := VerifyBytes(data, c.sign.Verifying(), testOrigin)
				if be := wantBreak(t, err, 0, false); !strings.Contains(be.Reason, "signature") || errors.Is(err, ErrWrongKey) {
					t.Errorf("record 0 changed: %v", err)
				}
				// Open checks record 0's signature only when it links to
				// the last record; otherwise the log opens (Verify's).
				if l, err := Open(writeLog(t, data), c.sign, testOrigin); err == nil {
					l.Close()
				} else if errors.Is(err, ErrWrongKey) || !errors.Is(err, ErrBroken) {
					t.Errorf("Open, record 0 changed: %v", err)
				}
			}
		}
	}
	if _, err := VerifyBytes(nil, nil, testOrigin); !errors.Is(err, errNoKey) {
		t.Fatalf("nil key: %v", err)
	}
}

// TestNotLog: a file that does not start with a record is no log
// (ErrNotLog, which is also ErrBroken), for Verify and Scan alike; zero
// bytes stay a torn tail, and a damaged first record stays a break.
func TestNotLog(t *testing.T) {
	sk := seedKey(t, "k", 5)
	recs := makeRecords(t, sk, testOrigin, 2)
	for _, data := range [][]byte{
		[]byte("PRIVATE+KEY+root+00000000+AQID\n"),
		[]byte(`{"jsonrpc":"2.0"}`),
		{0x01},
		{0x83, 0x01, 0x02, 0x03},
	} {
		_, err := VerifyBytes(data, sk.Verifying(), testOrigin)
		if !errors.Is(err, ErrNotLog) || !errors.Is(err, ErrBroken) || !strings.HasPrefix(err.Error(), "chain: not a receipt log: ") {
			t.Errorf("%q: Verify: %v", data, err)
		}
		for _, err := range Scan(bytes.NewReader(data)) {
			if !errors.Is(err, ErrNotLog) {
				t.Errorf("%q: Scan: %v", data, err)
			}
		}
		if strings.Contains(err.Error(), "Go value") || strings.Count(err.Error(), "cbor:") > 0 {
			t.Errorf("%q: %v", data, err)
		}
	}
	for _, data := range [][]byte{{0, 0, 0}, recs[0][:10], append(slices.Clone(recs[0][:1]), 0x00)} {
		if _, err := VerifyBytes(data, sk.Verifying(), testOrigin); errors.Is(err, ErrNotLog) || !errors.Is(err, ErrBroken) {
			t.Errorf("% x: %v", data, err)
		}
	}
	_, err := VerifyBytes(append(recs[1], recs[0]...), sk.Verifying(), testOrigin) // a record, not the first
	if errors.Is(err, ErrNotLog) {
		t.Errorf("records out of order: %v", err)
	}
}
