package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
)

// decodeValueReference is DecodeCaveat written with the fxamacker/cbor
// decoder, plus a re-encoding check. DecodeCaveat reads canonical bytes by
// hand for speed; this reference stays, and FuzzDecodeCaveatMatchesReference
// holds the two to the same answer on every input.
func decodeValueReference(k caveat.Kind, raw []byte) (caveat.Caveat, error) {
	c := caveat.Caveat{Kind: k}
	var err error
	switch k {
	case caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Audience:
		err = Unmarshal(raw, &c.List, TicketLimits())
	case caveat.Calls, caveat.Depth:
		err = Unmarshal(raw, &c.N, TicketLimits())
	case caveat.Until, caveat.NotBefore:
		var t uint64
		err = Unmarshal(raw, &t, TicketLimits())
		c.Time = int64(min(t, math.MaxInt64))
	case caveat.Cost, caveat.Total:
		var a amountValue
		err = Unmarshal(raw, &a, TicketLimits())
		c.Amount = caveat.Amount{Micros: a.Micros, Currency: a.Currency}
	case caveat.Intent:
		err = Unmarshal(raw, &c.Text, TicketLimits())
	case caveat.Holder, caveat.Args:
		err = Unmarshal(raw, &c.Bytes, TicketLimits())
	case caveat.Approval:
		var a struct { // both forms' keys; the re-encoding below keeps one form
			KeyID    string   `cbor:"1,keyasint"`
			Key      []byte   `cbor:"2,keyasint"`
			Nonce    []byte   `cbor:"3,keyasint"`
			Location string   `cbor:"4,keyasint"`
			Need     *uint64  `cbor:"5,keyasint"`
			KeyIDs   []string `cbor:"6,keyasint"`
			Keys     [][]byte `cbor:"7,keyasint"`
		}
		if err = Unmarshal(raw, &a, TicketLimits()); err != nil {
			break
		}
		if len(a.Nonce) != 16 {
			return caveat.Caveat{}, syntaxErr(k, "sizes")
		}
		c.Approver = &caveat.Approver{KeyID: a.KeyID, Location: a.Location}
		copy(c.Approver.Nonce[:], a.Nonce)
		if a.Need == nil && a.KeyIDs == nil && a.Keys == nil {
			if len(a.Key) != 32 {
				return caveat.Caveat{}, syntaxErr(k, "sizes")
			}
			copy(c.Approver.Key[:], a.Key)
			break
		}
		if a.Need == nil || *a.Need > 8 || a.Key != nil || len(a.KeyIDs) != len(a.Keys) {
			return caveat.Caveat{}, syntaxErr(k, "threshold form")
		}
		c.Approver.Need, c.Approver.Members = int(*a.Need), make([]caveat.Member, len(a.KeyIDs))
		for i := range a.KeyIDs {
			if len(a.Keys[i]) != 32 {
				return caveat.Caveat{}, syntaxErr(k, "sizes")
			}
			c.Approver.Members[i] = caveat.Member{KeyID: a.KeyIDs[i], Key: [32]byte(a.Keys[i])}
		}
	default:
		if err := Check(raw, TicketLimits()); err != nil {
			return caveat.Caveat{}, syntaxErr(k, "raw")
		}
		return caveat.Caveat{Kind: k, Raw: bytes.Clone(raw)}, nil
	}
	if err != nil {
		return caveat.Caveat{}, syntaxErr(k, "value")
	}
	if err := c.Valid(); err != nil {
		return caveat.Caveat{}, err
	}
	enc, err := EncodeCaveat(c)
	if err != nil || !bytes.Equal(enc, raw) {
		return caveat.Caveat{}, syntaxErr(k, "not canonical")
	}
	return c, nil
}

// The CBOR values of approval=k:KEY:NONCE (key bytes 0..31, nonce bytes
// 0..15), without and with a location.
var (
	approvalHex = "a3" + "01616b" + "025820000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
		"0350000102030405060708090a0b0c0d0e0f"
	approvalLocHex = "a4" + approvalHex[2:] + "046a68747470733a2f2f612f" // 4: "https://a/"
	// 2 of a, b: 3 nonce, 5 threshold, 6 key ids, 7 keys (bytes 0..31 and 1..32).
	thresholdHex = "a4" + "0350000102030405060708090a0b0c0d0e0f" + "0502" + "068261616162" +
		"07825820000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
		"58200102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
)

func FuzzDecodeCaveatMatchesReference(f *testing.F) {
	for _, s := range []struct {
		k   uint8
		hex string
	}{{1, "8169726561645f66696c65"}, {3, "81647372632f"}, {5, "05"}, {6, "1a6b0d7350"}, {9, "821a0007a120635553 44"},
		{12, "6568656c6c6f"}, {13, "5820" + "00000000000000000000000000000000000000000000000000000000000000ff"},
		{14, approvalHex}, {14, approvalLocHex}, {14, thresholdHex}, {15, "5820" + strings.Repeat("ab", 32)},
		{1, "826162616"}, {5, "1805"}, {9, "83010203"}, {99, "a10102"}, {4, "816b4558414d504c452e434f4d"}} {
		f.Add(s.k, mustHexF(s.hex))
	}
	f.Fuzz(func(t *testing.T, k uint8, raw []byte) {
		got, err1 := DecodeCaveat(caveat.Kind(k), raw)
		want, err2 := decodeValueReference(caveat.Kind(k), raw)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("kind %d %x: fast %v, reference %v", k, raw, err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, caveat.ErrSyntax) {
				t.Fatalf("error %v does not wrap caveat.ErrSyntax", err1)
			}
			return
		}
		if !got.Equal(want) {
			t.Fatalf("kind %d %x: fast %+v, reference %+v", k, raw, got, want)
		}
		if enc, err := EncodeCaveat(got); err != nil || !bytes.Equal(enc, raw) {
			t.Fatalf("kind %d %x re-encodes to %x (%v)", k, raw, enc, err)
		}
	})
}

// mustHexF decodes hex seeds, ignoring spaces and a trailing odd digit
// (some seeds are deliberately truncated items).
func mustHexF(s string) []byte {
	s = strings.ReplaceAll(s, " ", "")
	b, _ := hex.DecodeString(s[:len(s)&^1])
	return b
}

// decodeMapReference is CaveatDecoder.DecodeMap written with the fxamacker/cbor
// decoder: the map's canonical form checked as inside a block, then every
// value through decodeValueReference.
func decodeMapReference(m []byte) ([]caveat.Caveat, error) {
	if err := Check(m, TicketLimits()); err != nil {
		return nil, syntaxErr(0, "not canonical, or too large")
	}
	inBlock := TicketLimits()
	inBlock.MaxItemSize = 0 // the map's own size is what counts
	if err := Check(append([]byte{0xa1, 0x04}, m...), inBlock); err != nil {
		return nil, syntaxErr(0, "nested too deep for a block")
	}
	var w map[uint64]cbor.RawMessage
	if err := Unmarshal(m, &w, TicketLimits()); err != nil || w == nil {
		return nil, syntaxErr(0, "not a map of kinds")
	}
	if len(w) > MaxCaveatsPerBlock {
		return nil, syntaxErr(0, "too many")
	}
	var out []caveat.Caveat
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if k == 0 {
			return nil, syntaxErr(0, "kind 0")
		}
		c, err := decodeValueReference(caveat.Kind(k), w[k])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// FuzzDecodeMapMatchesReference holds CaveatDecoder.DecodeMap, reading a map
// that lies inside a larger buffer, to decodeMapReference.
func FuzzDecodeMapMatchesReference(f *testing.F) {
	for _, h := range []string{
		"a2018169726561645f66696c650381647372632f", "a0", "a10000", "a2030001", "a10300", "a1186381818100",
		"a118638181818100", "a1616100", "a201000100", "a1061a6b0d7350", "a10c6568656c6c6f", "a1018263616263",
		"a10e" + approvalHex, "a20e" + approvalLocHex + "0f5820" + strings.Repeat("cd", 32),
	} {
		f.Add(mustHexF(h))
	}
	f.Fuzz(func(t *testing.T, m []byte) {
		buf := append(append([]byte{0xff}, m...), 0xa0)
		d := NewCaveatDecoder(buf, make([]caveat.Caveat, 1))
		got, next, err1 := d.DecodeMap(1, 1+len(m))
		if err1 == nil && next != 1+len(m) {
			err1 = syntaxErr(0, "trailing bytes")
		}
		want, err2 := decodeMapReference(m)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%x: DecodeMap %v, reference %v", m, err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, caveat.ErrSyntax) {
				t.Fatalf("error %v does not wrap caveat.ErrSyntax", err1)
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%x: %d caveats, reference %d", m, len(got), len(want))
		}
		for i := range got {
			if !got[i].Equal(want[i]) {
				t.Fatalf("%x: caveat %d = %+v, reference %+v", m, i, got[i], want[i])
			}
		}
	})
}
