package chain

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// optBytes draws nil or 1..max bytes (an empty field decodes as nil).
func optBytes(t *rapid.T, max int, label string) []byte {
	b := rapid.SliceOfN(rapid.Byte(), 0, max).Draw(t, label)
	if len(b) == 0 {
		return nil
	}
	return b
}

func genRecord(t *rapid.T) Record {
	alg := rapid.SampledFrom([]key.Alg{key.Ed25519, key.HMACSHA256}).Draw(t, "alg")
	text := func(label string) string { return rapid.StringN(0, 40, -1).Draw(t, label) }
	r := Record{
		Seq:      rapid.Uint64().Draw(t, "seq"),
		Time:     time.UnixMilli(rapid.Int64Range(0, MaxTimeMillis).Draw(t, "ms")).UTC(),
		Kind:     Kind(rapid.IntRange(int(KindIntent), int(KindOther)).Draw(t, "kind")),
		TicketID: optBytes(t, MaxIDBytes, "ticket"),
		FamilyID: optBytes(t, MaxIDBytes, "family"),
		Block:    rapid.IntRange(0, MaxBlock).Draw(t, "block"),
		Tool:     text("tool"), Op: text("op"),
		Check: text("check"), Caveat: text("caveat"), Reason: text("reason"), Note: text("note"),
		Alg: alg,
		Sig: rapid.SliceOfN(rapid.Byte(), sigSize(alg), sigSize(alg)).Draw(t, "sig"),
	}
	if subj := rapid.SliceOfN(rapid.StringN(0, 20, -1), 0, 5).Draw(t, "subjects"); len(subj) > 0 {
		r.Subjects = subj
	}
	copy(r.Prev[:], rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "prev"))
	return r
}

// TestPropertyRoundTrip: decode(encode(r)) == r, the encoding is the one
// fxamacker's deterministic encoder gives for the whole map, and every
// accepted record re-encodes to identical bytes.
func TestPropertyRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genRecord(t)
		b, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		w, _ := r.toWire()
		w.Sig = r.Sig
		if direct, _ := wire.Marshal(w); !bytes.Equal(direct, b) {
			t.Fatalf("Marshal differs from the deterministic encoding of the map")
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("decoded %#v\nwant %#v", got, r)
		}
		again, err := got.Marshal()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs")
		}
	})
}

// TestPropertyMutatedBytes: any byte string near a valid record that
// decodes re-encodes to itself (there is no second encoding).
func TestPropertyMutatedBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, err := genRecord(t).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		b[i] = rapid.Byte().Draw(t, "byte")
		if cut := rapid.IntRange(0, 3).Draw(t, "cut"); cut > 0 && cut < len(b) {
			b = b[:len(b)-cut]
		}
		if r, err := Decode(b); err == nil {
			if again, err := r.Marshal(); err != nil || !bytes.Equal(again, b) {
				t.Fatalf("accepted % x re-encodes differently", b)
			}
		}
	})
}
