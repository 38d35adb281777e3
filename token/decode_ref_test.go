package token

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// decodeReference is Decode written with the fxamacker/cbor decoder, as it
// was before the hot path read bytes by hand; the checks of what the
// fields mean are the package's own. It stays as the reference:
// FuzzDecodeMatchesReference holds Decode to the same answer on every
// input.
func decodeReference(data []byte) (*Ticket, error) {
	if len(data) > MaxTicketBytes {
		return nil, malformed(-1, "size")
	}
	var w wire.Ticket
	if err := wire.Unmarshal(data, &w, wire.TicketLimits()); err != nil {
		return nil, malformed(-1, err.Error())
	}
	present := 2
	for _, p := range []bool{len(w.Sigs) > 0, len(w.Tail) > 0, len(w.Seal) > 0, len(w.Holder) > 0} {
		if p {
			present++
		}
	}
	if mapPairs(data) != present {
		return nil, malformed(-1, "field missing or empty")
	}
	t, _, err := newTicketFor(w.Version, len(w.Blocks), w.Tail, w.Seal)
	if err != nil {
		return nil, err
	}
	for i, raw := range w.Blocks {
		b, cavs, err := readBlockReference(raw, i)
		if err != nil {
			return nil, err
		}
		if err := t.setBlock(i, b, cavs, raw, w.Holder); err != nil {
			return nil, err
		}
	}
	if err := t.checkSigs(w.Sigs, w.Holder); err != nil {
		return nil, err
	}
	t.sigs = w.Sigs
	return t, nil
}

func readBlockReference(raw []byte, i int) (wire.Block, []caveat.Caveat, error) {
	var w wire.Block
	if err := wire.Unmarshal(raw, &w, wire.TicketLimits()); err != nil {
		return wire.Block{}, nil, malformed(i, err.Error())
	}
	present := 0
	for _, p := range []bool{w.Mode != 0, w.KeyID != "", len(w.ID) > 0, w.Caveats != nil, len(w.Next) > 0, len(w.Rebind) > 0} {
		if p {
			present++
		}
	}
	if mapPairs(raw) != present {
		return wire.Block{}, nil, malformed(i, "field present with an empty value")
	}
	if w.Caveats == nil {
		return wire.Block{}, nil, malformed(i, "no caveat map")
	}
	// Each value through DecodeCaveat, in kind order, as the map holds
	// them once fxamacker has checked the map's canonical form; not
	// through wire.CaveatDecoder, which the hot path uses.
	if len(w.Caveats) > MaxCaveatsPerBlock {
		return wire.Block{}, nil, malformed(i, "too many caveats")
	}
	var cavs []caveat.Caveat
	for _, k := range slices.Sorted(maps.Keys(w.Caveats)) {
		if k == 0 {
			return wire.Block{}, nil, malformed(i, "caveat kind 0 is reserved")
		}
		c, err := wire.DecodeCaveat(caveat.Kind(k), w.Caveats[k])
		if err != nil {
			return wire.Block{}, nil, fromCaveat(i, err, ErrMalformed)
		}
		cavs = append(cavs, c)
	}
	w.Caveats = nil
	return w, cavs, nil
}

// mapPairs returns the number of pairs of the canonical map that starts
// raw, or -1 if raw does not start with a small map.
func mapPairs(raw []byte) int {
	if len(raw) == 0 || raw[0]>>5 != 5 {
		return -1
	}
	switch ai := raw[0] & 0x1f; {
	case ai < 24:
		return int(ai)
	case ai == 24 && len(raw) > 1:
		return int(raw[1])
	}
	return -1
}

func FuzzDecodeMatchesReference(f *testing.F) {
	for _, mode := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		root, _ := key.Generate(mode, "k")
		cs, _ := caveat.ParseAll([]string{"tools=a,b", "paths=src/", "until=2026-11-30T13:00:00Z", "intent=x"}, time.Unix(0, 0))
		t, _ := Mint(root, cs, nil)
		f.Add(t.Encode())
		t2, _ := t.Attenuate(cs[:2], nil)
		f.Add(t2.Encode())
		t3, _ := t2.Seal()
		f.Add(t3.Encode())
	}
	// A twice rebound ticket: field 6 carries two holder signatures.
	hk, _ := key.Generate(key.HMACSHA256, "k")
	var hs [3]*key.Holder
	var hcs [3]caveat.Caveat
	for i := range hs {
		hs[i], _ = key.GenerateHolder(key.Ed25519)
		hcs[i], _ = caveat.NewHolder(hs[i].Thumbprint())
	}
	bound, _ := Mint(hk, hcs[:1], nil)
	for i := 1; i < len(hs); i++ {
		bound, _ = bound.Attenuate(hcs[i:i+1], &Options{Holder: hs[i-1]})
	}
	f.Add(bound.Encode())
	f.Add([]byte{0xa0})
	f.Add([]byte{0xa2, 0x01, 0x01, 0x02, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, errA := Decode(data)
		b, errB := decodeReference(data)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%x: Decode %v, reference %v", data, errA, errB)
		}
		if errA != nil {
			if !errors.Is(errA, ErrMalformed) {
				t.Fatalf("%v is not ErrMalformed", errA)
			}
			return
		}
		if !bytes.Equal(a.Encode(), data) || !bytes.Equal(b.Encode(), data) {
			t.Fatalf("%x does not re-encode to itself", data)
		}
	})
}

// FuzzLentMatchesParse holds the lent parse (lend.Parse, verify.VerifyText's)
// to Parse: the same error, or the same blocks and bytes.
func FuzzLentMatchesParse(f *testing.F) {
	for _, mode := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		root, _ := key.Generate(mode, "k")
		cs, _ := caveat.ParseAll([]string{"tools=a,b", "paths=src/", "until=2026-11-30T13:00:00Z", "intent=x", "total=5USD"}, time.Unix(0, 0))
		t, _ := Mint(root, cs, nil)
		f.Add(t.String())
		t2, _ := t.Attenuate(cs[:2], nil)
		f.Add(t2.String())
		t3, _ := t2.Seal()
		f.Add(t3.String())
		f.Add(t3.String()[:40])
	}
	f.Add(Prefix + "oA")
	f.Add(Prefix + "oA\n")
	f.Fuzz(func(t *testing.T, text string) {
		want, errW := Parse(text)
		v, errG := parseLent(text)
		if (errG == nil) != (errW == nil) || errG != nil && errG.Error() != errW.Error() {
			t.Fatalf("%q: lent %v, Parse %v", text, errG, errW)
		}
		if errG != nil {
			return
		}
		got := v.(*Ticket)
		defer got.lent.release()
		if !slices.EqualFunc(got.blocks, want.blocks, blockEqual) || !bytes.Equal(got.Encode(), want.Encode()) ||
			got.String() != want.String() || got.Sealed() != want.Sealed() {
			t.Fatalf("%q: lent ticket differs from Parse's", text)
		}
	})
}

func blockEqual(a, b Block) bool {
	return a.Alg == b.Alg && a.KeyID == b.KeyID && bytes.Equal(a.TicketID, b.TicketID) &&
		slices.EqualFunc(a.Caveats, b.Caveats, caveat.Caveat.Equal) && bytes.Equal(a.NextKey, b.NextKey) &&
		bytes.Equal(a.RebindJWK, b.RebindJWK) && bytes.Equal(a.RebindSig, b.RebindSig) && bytes.Equal(a.raw, b.raw)
}
