package vecgen

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// forged are tickets an attacker builds by hand, following the spec with
// what a holder (or thief) has. They decode; a verifier must refuse them.
func (g *gen) forged() {
	if g.err != nil {
		return
	}
	base := g.mint("forge/base", "root-h", g.caveats(block0...), g.caveats(block1...))
	bound := g.mint("forge/bound", "root-h", g.caveats(block0...), append(g.caveats(block1...), g.bind("alice")))
	refusedAll := func(r ...Refusal) []Request { return []Request{rq(t12, "read_file", rules, api, r...)} }

	g.addForged("hmac/widening-block", "a holder appends paths=src/ by hand after paths=src/discount/",
		g.appendHMAC(base, g.caveats("paths=src/"), ""), "root-h", refusedAll(ref("attenuation", 2, "paths")))
	g.addForged("hmac/rebind-unsigned", "a thief appends holder=mallory to a ticket bound to alice, without alice's signature",
		g.appendHMAC(bound, []caveat.Caveat{g.bind("mallory")}, ""), "root-h", refusedAll(ref("attenuation", 2, "holder")))
	g.addForged("hmac/rebind-by-thief", "a thief appends holder=mallory and signs the rebinding with mallory's own key",
		g.appendHMAC(bound, []caveat.Caveat{g.bind("mallory")}, "mallory"), "root-h", refusedAll(ref("attenuation", 2, "holder")))

	// An unknown caveat kind, minted with the root key: it decodes, and
	// fails closed.
	g.addForged("hmac/unknown-kind", "block 0 carries caveat kind 99, which this verifier does not know",
		g.mintRaw("root-h", map[uint64][]byte{1: mustHex("8169726561645f66696c65"), 99: {0x01}}), "root-h",
		refusedAll(ref("caveat", 0, "kind(99)")))

	// The RS256→HS256 confusion: an HMAC ticket keyed with the Ed25519 root
	// public key's bytes, under that key's id.
	confused, err := key.NewHMAC("root-e", fixedkey.Public(g.keys["root-e"].Verifying()))
	g.fail(err)
	if err == nil {
		t, err := mintFixed("confused", confused, g.caveats("tools=read_file"), nil)
		g.fail(err)
		g.addForged("hmac/mode-confusion", "an hmac ticket keyed with the ed25519 root public key, naming that key",
			t, "root-e", refusedAll(ref("mode", 0, "")))
	}

	e3 := g.mint("forge/e3", "root-e", g.caveats(block0...), g.caveats(block1...), g.caveats(block2...))
	other := g.mint("forge/other", "root-e", g.caveats(block0...), g.caveats("paths=src/refund/"), g.caveats(block2...))
	if e3 == nil || other == nil {
		return
	}
	w, o := unwire(g, e3), unwire(g, other)
	for _, s := range []struct {
		name, desc string
		idx        []int // indices into e3's blocks; -1 takes other's block 1
		block      int
	}{
		{"ed25519/dropped-middle-block", "block 1 removed", []int{0, 2}, 1},
		{"ed25519/dropped-last-block", "block 2 removed (the tail key no longer matches)", []int{0, 1}, -1},
		{"ed25519/reordered-blocks", "blocks 1 and 2 swapped", []int{0, 2, 1}, 1},
		{"ed25519/duplicated-block", "block 1 twice", []int{0, 1, 1, 2}, 2},
		{"ed25519/spliced-block", "block 1 taken from another ticket of the same root", []int{0, -1, 2}, 1},
	} {
		nw := wire.Ticket{Version: 1, Tail: w.Tail}
		for _, i := range s.idx {
			if i < 0 {
				nw.Blocks, nw.Sigs = append(nw.Blocks, o.Blocks[1]), append(nw.Sigs, o.Sigs[1])
			} else {
				nw.Blocks, nw.Sigs = append(nw.Blocks, w.Blocks[i]), append(nw.Sigs, w.Sigs[i])
			}
		}
		g.addForged(s.name, s.desc, g.decodeWire(nw), "root-e", refusedAll(ref("chain", s.block, "")))
	}

	h := unwire(g, base)
	flip := func(b []byte, i int) []byte { c := append([]byte(nil), b...); c[i] ^= 1; return c }
	for _, s := range []struct {
		name, desc string
		w          wire.Ticket
	}{
		{"hmac/dropped-last-block", "block 1 removed, tail kept", wire.Ticket{Version: 1, Blocks: h.Blocks[:1], Tail: h.Tail}},
		{"hmac/flipped-tag-bit", "one bit of the tail tag flipped", wire.Ticket{Version: 1, Blocks: h.Blocks, Tail: flip(h.Tail, 0)}},
		{"hmac/flipped-caveat-bit", "one bit of block 1's tool name flipped (still well-formed)", wire.Ticket{Version: 1, Blocks: [][]byte{h.Blocks[0], flip(h.Blocks[1], bytes.Index(h.Blocks[1], []byte("read_file"))+8)}, Tail: h.Tail}},
		{"hmac/sealed-then-appended", "a block appended to a sealed ticket, tagged with the seal tag as key", g.sealedAppend(h)},
	} {
		g.addForged(s.name, s.desc, g.decodeWire(s.w), "root-h", refusedAll(ref("chain", -1, "")))
	}
}

func (g *gen) addForged(name, desc string, t *token.Ticket, key string, reqs []Request) {
	if t == nil {
		g.fail(fmt.Errorf("vecgen: %s: no ticket", name))
		return
	}
	g.add(Vector{Name: name, Description: desc, Requests: reqs}, t, key, false)
}

func unwire(g *gen, t *token.Ticket) wire.Ticket {
	var w wire.Ticket
	g.fail(cbor.Unmarshal(t.Encode(), &w))
	return w
}

func (g *gen) decodeWire(w wire.Ticket) *token.Ticket {
	data, err := enc.Marshal(w)
	g.fail(err)
	t, err := token.Decode(data)
	g.fail(err)
	return t
}

// sealedAppend seals h (HMAC) and then appends a block keyed by the seal
// tag, as an attacker holding only the sealed ticket could.
func (g *gen) sealedAppend(h wire.Ticket) wire.Ticket {
	cs, err := caveat.ParseAll([]string{"calls=1"}, Now)
	g.fail(err)
	var b []byte
	if err == nil {
		v, _ := wire.EncodeCaveat(cs[0])
		b, _ = enc.Marshal(wire.Block{Caveats: map[uint64]cbor.RawMessage{uint64(caveat.Calls): v}})
	}
	seal := mac(h.Tail, []byte(lHSeal))
	return wire.Ticket{Version: 1, Blocks: append(append([][]byte(nil), h.Blocks...), b), Tail: mac(seal, []byte(lHBlock), b)}
}

// appendHMAC appends a block of caveats to an HMAC ticket by hand; with a
// holder name, the block rebinds and that holder signs it (spec §4.4).
func (g *gen) appendHMAC(t *token.Ticket, cs []caveat.Caveat, signer string) *token.Ticket {
	return g.appendSigned(t, cs, signer, false)
}

// appendSigned is appendHMAC; an ES256 signer's signature has a high S
// when highS is set, else a low one.
func (g *gen) appendSigned(t *token.Ticket, cs []caveat.Caveat, signer string, highS bool) *token.Ticket {
	if t == nil || g.err != nil {
		return nil
	}
	w := unwire(g, t)
	wb := wire.Block{Caveats: map[uint64]cbor.RawMessage{}}
	for _, c := range cs {
		v, err := wire.EncodeCaveat(c)
		g.fail(err)
		wb.Caveats[uint64(c.Kind)] = v
	}
	if signer != "" {
		wb.Rebind = []byte(g.file.Holders[signer].PublicJWK)
	}
	b, err := enc.Marshal(wb)
	g.fail(err)
	if signer != "" {
		prevID := sha([]byte(lID), w.Tail)
		sig := g.holderSign(signer, append(append([]byte(lRebind), prevID...), b...), highS)
		if w.Holder == nil {
			w.Holder = map[uint64][]byte{}
		}
		w.Holder[uint64(len(w.Blocks))] = sig
	}
	w.Blocks, w.Tail = append(w.Blocks, b), mac(w.Tail, []byte(lHBlock), b)
	return g.decodeWire(w)
}

// mintRaw mints a one-block HMAC ticket with raw caveat values.
func (g *gen) mintRaw(key string, caveats map[uint64][]byte) *token.Ticket {
	return g.decodeWire(g.rawWire(key, "mintRaw", caveats))
}

// rawTicket is the hex of a one-block HMAC ticket with raw caveat values,
// correctly tagged, whether or not a decoder accepts it.
func (g *gen) rawTicket(key, seed string, caveats map[uint64][]byte) string {
	data, err := enc.Marshal(g.rawWire(key, seed, caveats))
	g.fail(err)
	return hex.EncodeToString(data)
}

func (g *gen) rawWire(key, seed string, caveats map[uint64][]byte) wire.Ticket {
	return g.rawWireAs(key, key, seed, caveats)
}

// rawWireAs is rawWire keyed with key's secret under the key id keyID.
func (g *gen) rawWireAs(key, keyID, seed string, caveats map[uint64][]byte) wire.Ticket {
	secret := fixedkey.Secret(g.keys[key])
	id := make([]byte, 16)
	detrand.New(seed).Read(id)
	wb := wire.Block{Mode: 1, KeyID: keyID, ID: id, Caveats: map[uint64]cbor.RawMessage{}}
	for k, v := range caveats {
		wb.Caveats[k] = v
	}
	b, err := enc.Marshal(wb)
	g.fail(err)
	k := mac(secret, []byte(lKey), id)
	return wire.Ticket{Version: 1, Blocks: [][]byte{b}, Tail: mac(k, []byte(lHBlock), b)}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("vecgen: bad hex literal")
	}
	return b
}
