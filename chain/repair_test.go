package chain

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

// A tail is torn only when no complete, well-formed
// record follows the damage; otherwise the log is broken, and nothing
// (Repair, Open, Verify, Scan) may call it torn.

// offsets returns the offset of every record of recs joined.
func offsets(recs [][]byte) []int {
	out := make([]int, len(recs))
	off := 0
	for i, r := range recs {
		out[i] = off
		off += len(r)
	}
	return out
}

// headAt returns the offset in rec of the byte-string head that follows
// key (a one-byte key followed by a one-byte-length head 0x58 or 0x78).
func headAt(t *testing.T, rec []byte, sk byte, head byte) int {
	t.Helper()
	i := bytes.Index(rec, []byte{sk, head})
	if i < 0 {
		t.Fatalf("key %#x with head %#x not in the record", sk, head)
	}
	return i + 1
}

// wantNotTorn checks that every reader of the log at p reports a break
// that is not a torn tail at record index, offset off. Open checks only
// the first record (not its signature) and the log's end (the last record
// and its link to the one before): with midFile (damage it does not look
// for) it may accept the log, and Verify is what finds it.
func wantNotTorn(t *testing.T, name string, p string, sk *key.Signing, index int64, off int, midFile bool) {
	t.Helper()
	check := func(what string, err error) {
		t.Helper()
		var be *BreakError
		if !errors.As(err, &be) || be.Torn || errors.Is(err, ErrTorn) || be.Index != index || be.Offset != int64(off) {
			t.Errorf("%s: %s: %v, want a break (not torn) at record %d offset %d", name, what, err, index, off)
		}
	}
	_, err := Verify(p, sk.Verifying(), testOrigin)
	check("Verify", err)
	if l, err := Open(p, sk, testOrigin); err == nil {
		l.Close()
		if !midFile {
			t.Errorf("%s: Open accepted the log", name)
		}
	} else if errors.Is(err, ErrTorn) {
		t.Errorf("%s: Open: %v, want a break that is not torn", name, err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, err := range Scan(f) {
		if err != nil && errors.Is(err, ErrTorn) {
			t.Errorf("%s: Scan: %v, want a break that is not torn", name, err)
		}
	}
}

func TestRepairRefusesDamage(t *testing.T) {
	for kname, sk := range testKeys(t) {
		recs := makeRecords(t, sk, testOrigin, 13)
		good := join(recs)
		at := offsets(recs)
		last := len(recs) - 1
		// long is a record whose note claims more bytes than follow a
		// prefix of it below.
		long := seal(t, sk, Record{Seq: uint64(len(recs)), Time: t0.Add(time.Hour), Kind: KindOther,
			Note: strings.Repeat("x", MaxNoteBytes), Prev: Hash(recs[last])})
		// change returns the log with record k's byte i set to v.
		change := func(k, i int, v byte) []byte {
			b := slices.Clone(good)
			b[at[k]+i] = v
			return b
		}
		prevHead := func(k int) int { return headAt(t, recs[k], 0x0e, 0x58) }   // 0e 58 20: prev
		reasonHead := func(k int) int { return headAt(t, recs[k], 0x0c, 0x78) } // 0c 78 len: reason
		cases := []struct {
			name    string
			data    []byte
			index   int
			midFile bool // damage Open does not look for (record 0's signature, records before the last two)
		}{
			// The issue: one length byte of record 0 changed, so its item
			// claims more bytes than the file holds.
			{"record 0 prev length 1 byte to 2", change(0, prevHead(0), 0x59), 0, false},
			{"record 0 reason length 1 byte to 2", change(0, reasonHead(0), 0x79), 0, false},
			{"record 0 flipped sig byte", change(0, len(recs[0])-1, recs[0][len(recs[0])-1]^1), 0, true},
			{"record 0 cut to its map head", join(append([][]byte{recs[0][:1]}, recs[1:]...)), 0, false},
			{"middle record prev length", change(6, prevHead(6), 0x59), 6, true},
			{"middle record reason length", change(6, reasonHead(6), 0x79), 6, true},
			{"middle record flipped byte", change(6, 40, recs[6][40]^0x10), 6, true},
			{"middle record cut in half", join(slices.Concat(recs[:6], [][]byte{recs[6][:len(recs[6])/2]}, recs[7:])), 6, true},
			{"middle record cut 1 short", join(slices.Concat(recs[:6], [][]byte{recs[6][:len(recs[6])-1]}, recs[7:])), 6, true},
			{"middle record cut to 1 byte", join(slices.Concat(recs[:6], [][]byte{recs[6][:1]}, recs[7:])), 6, true},
			// The boundary: the record before the last, the last intact.
			{"second to last prev length", change(last-1, prevHead(last-1), 0x59), last - 1, false},
			{"second to last cut 1 short", join(slices.Concat(recs[:last-1], [][]byte{recs[last-1][:len(recs[last-1])-1]}, recs[last:])), last - 1, false},
			// A partial record, then a complete one: not what a crash leaves.
			{"partial then complete", slices.Concat(good, recs[0][:10], recs[0]), len(recs), false},
			{"partial long record then complete", slices.Concat(good, long[:100], recs[0]), len(recs), false},
		}
		for _, c := range cases {
			name := kname + ": " + c.name
			p := writeLog(t, c.data)
			d, err := Repair(p, sk.Verifying(), testOrigin)
			var be *BreakError
			if !errors.As(err, &be) || be.Torn || be.Index != int64(c.index) || d != (Torn{}) {
				t.Errorf("%s: Repair = %+v, %v; want a refusal naming record %d", name, d, err, c.index)
			}
			if got, _ := os.ReadFile(p); !bytes.Equal(got, c.data) {
				t.Errorf("%s: Repair changed the file (%d bytes, was %d)", name, len(got), len(c.data))
			}
			off := len(good)
			if c.index < len(recs) {
				off = at[c.index]
			}
			if want := fmt.Sprintf("broken at record %d (offset %d)", c.index, off); err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", name, err, want)
			}
			wantNotTorn(t, name, p, sk, int64(c.index), off, c.midFile)
		}
	}
}

func TestRepairTornTail(t *testing.T) {
	for kname, sk := range testKeys(t) {
		recs := makeRecords(t, sk, testOrigin, 13)
		last := recs[len(recs)-1]
		good := join(recs[:len(recs)-1])
		other := makeRecords(t, sk, "example.com/receipts/other", 1)[0]
		lastLonger := slices.Clone(last)
		lastLonger[headAt(t, last, 0x0e, 0x58)] = 0x59
		cases := []struct {
			name string
			tail []byte
		}{
			{"1 byte of the last record", last[:1]},
			{"2 bytes", last[:2]},
			{"half", last[:len(last)/2]},
			{"inside its prev", last[:headAt(t, last, 0x0e, 0x58)+10]},
			{"just before its signature", last[:len(last)-sigSize(sk.Alg())]},
			{"1 byte short", last[:len(last)-1]},
			{"zero bytes", make([]byte, 7)},
			{"a map head", []byte{0xaf}},
			{"a record of another log, 1 byte short", other[:len(other)-1]},
			{"the first record, 1 byte short", recs[0][:len(recs[0])-1]},
			// The boundary of the rule: nothing complete follows the last
			// record, so one whose length byte changed is a torn tail too;
			// its bytes cannot be told from a cut.
			{"the last record, its prev length 1 byte to 2", lastLonger},
		}
		for _, c := range cases {
			name := kname + ": " + c.name
			data := slices.Concat(good, c.tail)
			p := writeLog(t, data)
			_, err := Verify(p, sk.Verifying(), testOrigin)
			if be := (*BreakError)(nil); !errors.As(err, &be) || !be.Torn || be.Offset != int64(len(good)) || be.Index != int64(len(recs)-1) {
				t.Errorf("%s: Verify: %v, want a torn tail at offset %d", name, err, len(good))
			}
			if _, err := Open(p, sk, testOrigin); !errors.Is(err, ErrTorn) {
				t.Errorf("%s: Open: %v, want ErrTorn", name, err)
			}
			d, err := Repair(p, sk.Verifying(), testOrigin)
			if err != nil || d != (Torn{Offset: int64(len(good)), Bytes: int64(len(c.tail))}) {
				t.Errorf("%s: Repair = %+v, %v", name, d, err)
			}
			if got, _ := os.ReadFile(p); !bytes.Equal(got, good) {
				t.Errorf("%s: after Repair the log is %d bytes, want the %d of its complete records", name, len(got), len(good))
			}
		}
	}
}

// TestOpenDamageNotTorn: Open checks the middle of a log as CBOR items
// only. A damaged record whose new length swallows the start of the next
// one can leave, at the end of the file, an item cut short that a CBOR
// scan takes for a torn tail; Open must still name the damaged record, as
// Verify and Repair do.
func TestOpenDamageNotTorn(t *testing.T) {
	for kname, sk := range testKeys(t) {
		recs := makeRecords(t, sk, testOrigin, 13)
		k := len(recs) - 2
		last := slices.Clone(recs[k+1])
		resume := len(last) - 10 // a map head of 23 pairs, 9 bytes before the end
		last[resume] = 0xb7
		sig := sigSize(sk.Alg())
		i := len(recs[k]) - sig - 2 // the signature's head: 0x58 len
		n := sig + resume
		damaged := slices.Concat(recs[k][:i], []byte{0x59, byte(n >> 8), byte(n)}, recs[k][i+2:])
		data := slices.Concat(join(recs[:k]), damaged, last)
		at := offsets(recs)
		p := writeLog(t, data)
		_, err := Open(p, sk, testOrigin)
		if be := (*BreakError)(nil); !errors.As(err, &be) || be.Torn || be.Index != int64(k) || be.Offset != int64(at[k]) {
			t.Errorf("%s: Open: %v, want a break (not torn) at record %d offset %d", kname, err, k, at[k])
		}
		wantNotTorn(t, kname, p, sk, int64(k), at[k], false)
		d, err := Repair(p, sk.Verifying(), testOrigin)
		if be := (*BreakError)(nil); !errors.As(err, &be) || be.Torn || d != (Torn{}) {
			t.Errorf("%s: Repair = %+v, %v", kname, d, err)
		}
		if got, _ := os.ReadFile(p); !bytes.Equal(got, data) {
			t.Errorf("%s: Repair changed the file", kname)
		}
	}
}
