package token

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/strictcbor"
	"github.com/tickettool/tickettool/key"
)

// decodeReference is Decode written with the fxamacker/cbor decoder, as it
// was before the hot path read bytes by hand. It stays as the reference:
// FuzzDecodeMatchesReference holds Decode to the same answer on every
// input.
func decodeReference(data []byte) (*Ticket, error) {
	if len(data) > MaxTicketBytes {
		return nil, malformed(-1, "size")
	}
	var w wireTicket
	if err := strictcbor.Unmarshal(data, &w, strictcbor.TicketLimits()); err != nil {
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
	return ticketFromFields(w, ticketBlocks{raw: w.Blocks}, data, readBlockReference)
}

func readBlockReference(raw []byte, i int) (blockFields, error) {
	var w wireBlock
	if err := strictcbor.Unmarshal(raw, &w, strictcbor.TicketLimits()); err != nil {
		return blockFields{}, malformed(i, err.Error())
	}
	present := 0
	for _, p := range []bool{w.Mode != 0, w.KeyID != "", len(w.ID) > 0, w.Caveats != nil, len(w.Next) > 0, len(w.Rebind) > 0} {
		if p {
			present++
		}
	}
	if mapPairs(raw) != present {
		return blockFields{}, malformed(i, "field present with an empty value")
	}
	f := blockFields{mode: w.Mode, keyID: []byte(w.KeyID), id: w.ID, next: w.Next, rebind: w.Rebind}
	if w.Caveats != nil {
		// Each value through DecodeValue, in kind order, as the map holds
		// them once fxamacker has checked the map's canonical form; not
		// through caveat.Decoder, which the hot path uses.
		if len(w.Caveats) > MaxCaveatsPerBlock {
			return blockFields{}, malformed(i, "too many caveats")
		}
		kinds := slices.Sorted(maps.Keys(w.Caveats))
		f.hasCavs = true
		for _, k := range kinds {
			if k == 0 {
				return blockFields{}, malformed(i, "caveat kind 0 is reserved")
			}
			c, err := caveat.DecodeValue(caveat.Kind(k), w.Caveats[k])
			if err != nil {
				return blockFields{}, fromCaveat(i, err, ErrMalformed)
			}
			f.cavs = append(f.cavs, c)
		}
	}
	return f, nil
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
