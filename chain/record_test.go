package chain

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

func TestRecordRoundTrip(t *testing.T) {
	for name, sk := range testKeys(t) {
		recs := makeRecords(t, sk, testOrigin, 3)
		for i, b := range recs {
			r, err := Decode(b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Seq != uint64(i) || r.Kind != KindRefused || r.Alg != sk.Alg() || r.Block != 2 {
				t.Fatalf("%s: decoded %+v", name, r)
			}
			again, err := r.Marshal()
			if err != nil || string(again) != string(b) {
				t.Fatalf("%s: re-encoding differs: %v", name, err)
			}
			if _, err := VerifyRecord(b, sk.Verifying()); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
}

// TestVerifyRecordWrongAlg: a record of the other algorithm is
// ErrWrongAlg, whatever its signature, not just "does not verify".
func TestVerifyRecordWrongAlg(t *testing.T) {
	ks := testKeys(t)
	for name, sk := range ks {
		b := makeRecords(t, sk, testOrigin, 1)[0]
		for other, ok := range ks {
			if other == name {
				continue
			}
			if _, err := VerifyRecord(b, ok.Verifying()); !errors.Is(err, ErrWrongAlg) {
				t.Errorf("%s record under the %s key: %v", name, other, err)
			}
		}
	}
}

func TestMinimalRecord(t *testing.T) {
	sk := seedKey(t, "k", 1)
	r := Record{Kind: KindIntent, Time: t0, Prev: OriginHash(testOrigin)}
	b := seal(t, sk, r)
	// {1: 0, 2: ms, 3: 1, 14: h'..', 15: 1, 16: h'..'}: six pairs.
	if b[0] != 0xa6 {
		t.Fatalf("head %#x", b[0])
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r.Alg, r.Sig = key.Ed25519, got.Sig
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("got %+v\nwant %+v", got, r)
	}
}

func TestMarshalRefuses(t *testing.T) {
	base := fullRecord(0)
	base.Time, base.Alg, base.Sig = t0, key.Ed25519, make([]byte, 64)
	cases := map[string]func(*Record){
		"kind 0":            func(r *Record) { r.Kind = 0 },
		"kind 10":           func(r *Record) { r.Kind = 10 },
		"alg 0":             func(r *Record) { r.Alg = 0 },
		"sig size":          func(r *Record) { r.Sig = make([]byte, 32) },
		"negative block":    func(r *Record) { r.Block = -1 },
		"huge block":        func(r *Record) { r.Block = MaxBlock + 1 },
		"before epoch":      func(r *Record) { r.Time = time.Unix(-1, 0) },
		"after 9999":        func(r *Record) { r.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
		"long id":           func(r *Record) { r.TicketID = make([]byte, MaxIDBytes+1) },
		"long family":       func(r *Record) { r.FamilyID = make([]byte, MaxIDBytes+1) },
		"bad utf8 tool":     func(r *Record) { r.Tool = "\xff" },
		"bad utf8 subj":     func(r *Record) { r.Subjects = []string{"ok", "\xc3"} },
		"long reason":       func(r *Record) { r.Reason = strings.Repeat("r", MaxReasonBytes+1) },
		"long note":         func(r *Record) { r.Note = strings.Repeat("n", MaxNoteBytes+1) },
		"many subjects":     func(r *Record) { r.Subjects = make([]string, MaxSubjects+1) },
		"too long record":   func(r *Record) { r.Subjects = fill(MaxSubjects, MaxNameBytes) },
		"empty approver":    func(r *Record) { r.Approvals = []Approval{{KeyID: ""}} },
		"long approver":     func(r *Record) { r.Approvals = []Approval{{KeyID: strings.Repeat("k", MaxIDBytes+1)}} },
		"bad utf8 approver": func(r *Record) { r.Approvals = []Approval{{KeyID: "\xff"}} },
		"many approvals":    func(r *Record) { r.Approvals = make([]Approval, MaxApprovals+1) },
	}
	for name, mutate := range cases {
		r := base
		mutate(&r)
		if _, err := r.Marshal(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Marshal error %v, want ErrMalformed", name, err)
		}
	}
	if _, err := base.Marshal(); err != nil {
		t.Fatal(err)
	}
}

func fill(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("x", size)
	}
	return out
}

func TestKindAndAlgNames(t *testing.T) {
	for k := KindIntent; k <= KindReleased; k++ {
		if p, err := ParseKind(k.String()); err != nil || p != k {
			t.Fatalf("kind %d: %v", k, err)
		}
	}
	if _, err := ParseKind("bogus"); err == nil || Kind(10).String() != "kind(10)" {
		t.Fatal("bogus kind accepted")
	}
}

func TestStringAndJSON(t *testing.T) {
	sk := seedKey(t, "k", 1)
	r := fullRecord(0)
	r.Time, r.Prev = t0, OriginHash(testOrigin)
	r.Note = "line one\nline two"
	got, err := Decode(seal(t, sk, r))
	if err != nil {
		t.Fatal(err)
	}
	line := got.String()
	if strings.Contains(line, "\n") || !strings.HasPrefix(line, "#0 2025-06-15T15:06:40.000Z refused ticket=aabb00 block=2 family=f00d tool=") ||
		!strings.Contains(line, `note="line one\nline two"`) {
		t.Fatalf("String() = %s", line)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["time"] != "2025-06-15T15:06:40.000Z" || m["ticket_id"] != "aabb00" || m["kind"] != "refused" ||
		m["alg"] != "ed25519" || m["block"] != 2.0 || len(m["sig"].(string)) != 128 {
		t.Fatalf("JSON %s", b)
	}
	intent, _ := json.Marshal(Record{Kind: KindIntent, Time: t0, Alg: key.HMACSHA256})
	if strings.Contains(string(intent), "block") || strings.Contains(string(intent), "ticket_id") {
		t.Fatalf("empty fields shown: %s", intent)
	}
}
