package verify_test

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// These tests play a holder who bypasses Attenuate and appends a block by
// hand, following spec/FORMAT.md §4 with the appending secret the ticket
// carries. The chain verifies; the verifier must still refuse the block for
// not narrowing.

func unwireT(t *testing.T, tk *token.Ticket) wire.Ticket {
	t.Helper()
	var w wire.Ticket
	if err := wire.Unmarshal(tk.Encode(), &w, wire.TicketLimits()); err != nil {
		t.Fatal(err)
	}
	return w
}

// appendRebindByHand appends a block naming a new holder, signed (spec
// §4.4) by signer, whoever that is.
func appendRebindByHand(t *testing.T, tk *token.Ticket, signer holder, cs ...caveat.Caveat) *token.Ticket {
	return appendRaw(t, tk, &signer, cs)
}

func appendByHand(t *testing.T, tk *token.Ticket, cs ...caveat.Caveat) *token.Ticket {
	return appendRaw(t, tk, nil, cs)
}

func appendRaw(t *testing.T, tk *token.Ticket, signer *holder, cs []caveat.Caveat) *token.Ticket {
	t.Helper()
	w := unwireT(t, tk)
	wb := wire.Block{Caveats: map[uint64]cbor.RawMessage{}}
	if signer != nil {
		wb.Rebind = signer.key.Public().JWK()
	}
	for _, c := range cs {
		v, err := wire.EncodeCaveat(c)
		if err != nil {
			t.Fatal(err)
		}
		wb.Caveats[uint64(c.Kind)] = v
	}
	var nextSeed []byte
	if len(w.Sigs) > 0 {
		nextSeed = make([]byte, 32)
		nextSeed[0] = 9
		wb.Next = ed25519.NewKeyFromSeed(nextSeed).Public().(ed25519.PublicKey)
	}
	b, err := wire.Marshal(wb)
	if err != nil {
		t.Fatal(err)
	}
	if signer != nil { // Sig = holder-sign(L_REBIND ‖ ID_{n} ‖ B)
		prev := w.Tail
		if len(w.Sigs) > 0 {
			prev = w.Sigs[len(w.Sigs)-1]
		}
		id := sha256.Sum256(append([]byte("tickettool/v1 block id\x00"), prev...))
		sig, err := signer.key.Sign(append(append([]byte("tickettool/v1 rebind\x00"), id[:]...), b...))
		if err != nil {
			t.Fatal(err)
		}
		if w.Holder == nil {
			w.Holder = map[uint64][]byte{}
		}
		w.Holder[uint64(len(w.Blocks))] = sig
	}
	if len(w.Sigs) == 0 { // HMAC: T_{n+1} = HMAC(T_n, L_HBLOCK ‖ B)
		m := hmac.New(sha256.New, w.Tail)
		m.Write([]byte("tickettool/v1 hmac block\x00"))
		m.Write(b)
		w.Tail = m.Sum(nil)
	} else { // Ed25519: Sig = Sign(k_{n+1}, L_EBLOCK ‖ Sig_n ‖ B)
		msg := append([]byte("tickettool/v1 ed25519 block\x00"), w.Sigs[len(w.Sigs)-1]...)
		w.Sigs = append(w.Sigs, ed25519.Sign(ed25519.NewKeyFromSeed(w.Tail), append(msg, b...)))
		w.Tail = nextSeed
	}
	w.Blocks = append(w.Blocks, b)
	data, err := wire.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	out, err := token.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHandAppendedWideningBlockRefused(t *testing.T) {
	for _, f := range fixtures(t) {
		r := req("read_file", "src/discount/a", "https://a.example.org/")
		// An honest hand-made block verifies: the forging helper is right.
		honest := appendByHand(t, f.child, parse(t, "calls=1")...)
		if d, _ := verify.Verify(honest, r, f.keys, t0, nil); !d.Allowed {
			t.Fatalf("%s: honest hand-appended block refused: %v", f.name, d.Refusals)
		}
		for _, wide := range [][]string{
			{"tools=read_file,write_file"},
			{"paths=src/"},
			{"calls=5"},
			{"until=2026-11-30T14:00:00Z"},
			{"intent=something else"},
		} {
			forged := appendByHand(t, f.child, parse(t, wide...)...)
			d, err := verify.Verify(forged, r, f.keys, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed || d.Refusals[0].Check != verify.CheckAttenuation || d.Refusals[0].Block != 2 {
				t.Errorf("%s %v: got %+v, want an attenuation refusal at block 2", f.name, wide, d.Refusals)
			}
		}
		// After ops without delegate, any appended block is refused.
		nd, err := f.child.Attenuate(parse(t, "ops=invoke"), nil)
		if err != nil {
			t.Fatal(err)
		}
		forged := appendByHand(t, nd)
		if d, _ := verify.Verify(forged, r, f.keys, t0, nil); d.Allowed || d.Refusals[0].Check != verify.CheckAttenuation {
			t.Errorf("%s: block after ops without delegate: %+v", f.name, d.Refusals)
		}
	}
}

// TestSmallOrderNextKeyRefused: a block whose next key is a point of small
// order lets anyone sign the next block (for the identity point, R = 01
// 00…00 and S = 0 verify every message): a decoder refuses it as
// malformed, naming the block, for every one of the 14 encodings.
func TestSmallOrderNextKeyRefused(t *testing.T) {
	f := fixtures(t)[1] // Ed25519
	if f.name != "ed25519" {
		t.Fatalf("fixture %s", f.name)
	}
	for _, y := range []string{
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000000",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	} {
		for _, sign := range []byte{0, 0x80} {
			next, _ := hex.DecodeString(y)
			next[31] |= sign
			// The holder appends, by hand, a block whose next key is next.
			w := unwireT(t, f.child)
			wb := wire.Block{Caveats: map[uint64]cbor.RawMessage{}, Next: next}
			b, err := wire.Marshal(wb)
			if err != nil {
				t.Fatal(err)
			}
			msg := append([]byte("tickettool/v1 ed25519 block\x00"), w.Sigs[len(w.Sigs)-1]...)
			w.Sigs = append(w.Sigs, ed25519.Sign(ed25519.NewKeyFromSeed(w.Tail), append(msg, b...)))
			w.Tail = make([]byte, 32) // no one knows a private key of next
			w.Blocks = append(w.Blocks, b)
			data, err := wire.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			_, err = token.Decode(data)
			var me *token.Error
			if !errors.Is(err, token.ErrMalformed) || !errors.As(err, &me) || me.Block != 2 {
				t.Errorf("next key %x: decode error %v, want malformed at block 2", next, err)
			}
		}
	}
	// A root key of small order is refused too.
	if _, err := key.NewEd25519Public("root", make([]byte, 32)); err == nil {
		t.Error("a small-order root key was accepted")
	}
}
