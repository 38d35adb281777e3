package wire_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/internal/wire"
)

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := wire.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goodDischargeBlock is a block with every field, its caveat map holding
// until (kind 6).
func goodDischargeBlock(t testing.TB) []byte {
	return mustMarshal(t, wire.DischargeBlock{KeyID: "lead", ID: bytes.Repeat([]byte{1}, 16),
		Caveats: map[uint64]cbor.RawMessage{6: mustMarshal(t, uint64(1800000000))}, Binding: bytes.Repeat([]byte{2}, 32)})
}

func TestReadDischarge(t *testing.T) {
	blk := goodDischargeBlock(t)
	sig := bytes.Repeat([]byte{3}, 64)
	good := mustMarshal(t, wire.Discharge{Version: 1, Block: blk, Sig: sig})
	d, off, err := wire.ReadDischarge(good)
	if err != nil || d.Version != 1 || !bytes.Equal(d.Block, blk) || !bytes.Equal(d.Sig, sig) || !bytes.Equal(good[off:off+len(blk)], blk) {
		t.Fatalf("good discharge: %v", err)
	}
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"missing sig", map[uint64]any{1: 1, 2: blk}, "missing"},
		{"missing version", map[uint64]any{2: blk, 3: sig}, "missing"},
		{"unknown field", map[uint64]any{1: 1, 2: blk, 3: sig, 4: []byte{1}}, "unknown field 4"},
		{"empty block", map[uint64]any{1: 1, 2: []byte{}, 3: sig}, "empty value"},
		{"empty sig", map[uint64]any{1: 1, 2: blk, 3: []byte{}}, "empty value"},
		{"zero version", map[uint64]any{1: 0, 2: blk, 3: sig}, "empty value"},
		{"ticket envelope", wire.Ticket{Version: 1, Blocks: [][]byte{blk}, Tail: sig}, "wrong CBOR type"},
		{"text key", map[string]any{"1": 1}, "wrong CBOR type"},
		{"array", []any{1, blk, sig}, "wrong CBOR type"},
		{"too large", map[uint64]any{1: 1, 2: make([]byte, wire.MaxDischargeBytes), 3: sig}, "larger than"},
	} {
		_, _, err := wire.ReadDischarge(mustMarshal(t, c.v))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"trailing", append(bytes.Clone(good), 0), "trailing"},
		{"unordered", append([]byte{0xa3, 0x02, 0x41, 0x00, 0x01, 0x01}, good[len(good)-(2+2+64):]...), "canonical order"},
		{"non-shortest version", append([]byte{0xa3, 0x01, 0x18, 0x01}, good[3:]...), "shortest"},
		{"indefinite map", []byte{0xbf, 0x01, 0x01, 0xff}, "indefinite"},
	} {
		_, _, err := wire.ReadDischarge(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestReadDischargeBlock(t *testing.T) {
	until := mustMarshal(t, uint64(1800000000))
	nonce, bind := bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{2}, 32)
	read := func(b []byte) (wire.DischargeBlock, error) {
		buf := append([]byte{0xff, 0xff}, b...) // the block lies inside a larger buffer
		dec := wire.NewCaveatDecoder(buf, nil)
		d, _, err := wire.ReadDischargeBlock(buf, 2, len(buf), &dec)
		return d, err
	}
	good := goodDischargeBlock(t)
	if d, err := read(good); err != nil || d.KeyID != "lead" || !bytes.Equal(d.ID, nonce) || !bytes.Equal(d.Binding, bind) {
		t.Fatalf("good block: %+v %v", d, err)
	}
	cavs := map[uint64]cbor.RawMessage{6: until}
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"missing binding", map[uint64]any{2: "lead", 3: nonce, 4: cavs}, "missing"},
		{"missing caveats", map[uint64]any{2: "lead", 3: nonce, 7: bind}, "missing"},
		{"missing key id", map[uint64]any{3: nonce, 4: cavs, 7: bind}, "missing"},
		{"missing nonce", map[uint64]any{2: "lead", 4: cavs, 7: bind}, "missing"},
		{"ticket's mode", map[uint64]any{1: 2, 2: "lead", 3: nonce, 4: cavs, 7: bind}, "unknown field 1"},
		{"next key", map[uint64]any{2: "lead", 3: nonce, 4: cavs, 5: bind, 7: bind}, "unknown field 5"},
		{"empty key id", map[uint64]any{2: "", 3: nonce, 4: cavs, 7: bind}, "empty value"},
		{"empty nonce", map[uint64]any{2: "lead", 3: []byte{}, 4: cavs, 7: bind}, "empty value"},
		{"empty binding", map[uint64]any{2: "lead", 3: nonce, 4: cavs, 7: []byte{}}, "empty value"},
		{"key id bytes", map[uint64]any{2: []byte("lead"), 3: nonce, 4: cavs, 7: bind}, "wrong CBOR type"},
		{"caveats array", map[uint64]any{2: "lead", 3: nonce, 4: []any{}, 7: bind}, "not a map"},
		{"bad caveat", map[uint64]any{2: "lead", 3: nonce, 4: map[uint64]any{6: "x"}, 7: bind}, "CBOR type"},
	} {
		_, err := read(mustMarshal(t, c.v))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := read(append(bytes.Clone(good), 0)); err == nil || !strings.Contains(err.Error(), "trailing") {
		t.Errorf("trailing: %v", err)
	}
}

// FuzzReadDischargeMatchesReference holds ReadDischarge to fxamacker's
// strict decoder: what one reader accepts the other accepts with the same
// fields.
func FuzzReadDischargeMatchesReference(f *testing.F) {
	f.Add(mustMarshal(f, wire.Discharge{Version: 1, Block: goodDischargeBlock(f), Sig: bytes.Repeat([]byte{3}, 64)}))
	f.Add([]byte{0xa1, 0x01, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, err := wire.ReadDischarge(data)
		var ref wire.Discharge
		refErr := wire.Unmarshal(data, &ref, wire.TicketLimits())
		if err != nil {
			return // the reference may accept what misses a field or is empty: ours is stricter
		}
		if refErr != nil {
			t.Fatalf("ReadDischarge accepts what the reference refuses: %v", refErr)
		}
		if got.Version != ref.Version || !bytes.Equal(got.Block, ref.Block) || !bytes.Equal(got.Sig, ref.Sig) {
			t.Fatalf("readers disagree: %+v vs %+v", got, ref)
		}
		if re := mustMarshal(t, got); !bytes.Equal(re, data) {
			t.Fatalf("accepted input does not re-encode to itself")
		}
	})
}
