package chain

import (
	"bytes"
	"errors"
	"maps"
	"testing"

	"github.com/tickettool/tickettool/internal/wire"
)

// minimalMap is the generic map form of a minimal Ed25519 record.
func minimalMap(sig []byte, prev [32]byte) map[uint64]any {
	return map[uint64]any{1: uint64(0), 2: uint64(t0.UnixMilli()), 3: uint64(KindIntent), 14: prev[:], 15: uint64(1), 16: sig}
}

func mustCBOR(t *testing.T, v any) []byte {
	t.Helper()
	b, err := wire.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNonCanonicalRefused checks that every other encoding of a valid
// record, and every near-record, is refused by Decode.
func TestNonCanonicalRefused(t *testing.T) {
	sk := seedKey(t, "k", 1)
	prev := OriginHash(testOrigin)
	good := seal(t, sk, Record{Kind: KindIntent, Time: t0, Prev: prev})
	rec, err := Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	base := minimalMap(rec.Sig, prev)
	if !bytes.Equal(mustCBOR(t, base), good) {
		t.Fatal("generic map encoding differs from the record encoding")
	}
	with := func(k uint64, v any) []byte {
		m := maps.Clone(base)
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return mustCBOR(t, m)
	}
	// good = a6 01 00 02 1b <8 bytes time> 03 01 0e 58 20 ...
	if good[0] != 0xa6 || good[1] != 0x01 || good[2] != 0x00 || good[3] != 0x02 {
		t.Fatalf("unexpected layout % x", good[:4])
	}
	rest := good[3:] // from key 2 on
	cases := map[string][]byte{
		"non-shortest seq":      append([]byte{0xa6, 0x01, 0x18, 0x00}, rest...),
		"non-shortest map head": append([]byte{0xb8, 0x06}, good[1:]...),
		"indefinite map":        append(append([]byte{0xbf}, good[1:]...), 0xff),
		"unsorted keys":         append(append([]byte{0xa6}, rest[:10]...), append([]byte{0x01, 0x00}, rest[10:]...)...),
		"duplicate key":         append([]byte{0xa7, 0x01, 0x00, 0x01, 0x00}, rest...),
		"text key":              append([]byte{0xa6, 0x61, '1', 0x00}, rest...),
		"trailing byte":         append(append([]byte{}, good...), 0x00),
		"tagged":                append([]byte{0xd8, 0x18}, good...),
		"array":                 append([]byte{0x86}, good[1:]...),
		"unknown key 17":        with(17, uint64(0)),
		"unknown key 0":         with(0, uint64(0)),
		"empty tool present":    with(7, ""),
		"empty ticket present":  with(4, []byte{}),
		"empty subjects":        with(9, []any{}),
		"block 0 present":       with(6, uint64(0)),
		"missing seq":           with(1, nil),
		"missing time":          with(2, nil),
		"missing kind":          with(3, nil),
		"missing prev":          with(14, nil),
		"missing alg":           with(15, nil),
		"missing sig":           with(16, nil),
		"float time":            with(2, 1.5),
		"negative time":         with(2, int64(-1)),
		"time after 9999":       with(2, uint64(MaxTimeMillis+1)),
		"kind 0":                with(3, uint64(0)),
		"kind 10":               with(3, uint64(10)),
		"kind as text":          with(3, "intent"),
		"alg 3":                 with(15, uint64(3)),
		"short prev":            with(14, prev[:31]),
		"prev as text":          with(14, string(prev[:])),
		"short sig":             with(16, rec.Sig[:63]),
		"hmac-sized sig":        with(16, rec.Sig[:32]),
		"block too large":       with(6, uint64(MaxBlock+1)),
		"subject not text":      with(9, []any{uint64(1)}),
		"nested subjects":       with(9, []any{[]any{"a"}}),
		"bool kind":             with(3, true),
		"empty input":           {},
		"just a map head":       {0xa6},
	}
	for name, b := range cases {
		if bytes.Equal(b, good) {
			t.Fatalf("%s: case equals the good record", name)
		}
		if _, err := Decode(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Decode error %v, want ErrMalformed", name, err)
		}
		if _, err := VerifyBytes(b, sk.Verifying(), testOrigin); len(b) > 0 && !errors.Is(err, ErrBroken) {
			t.Errorf("%s: VerifyBytes error %v, want ErrBroken", name, err)
		}
	}
}
