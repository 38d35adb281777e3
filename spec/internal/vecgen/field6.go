package vecgen

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/hex"
	"maps"
	"strings"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/token"
)

// rawBlock is wire.Block with field 6 as raw CBOR, so that a vector can
// carry an empty or odd rebinding JWK: its Rebind hides the embedded one
// (the shallower field wins, as in encoding/json).
type rawBlock struct {
	wire.Block
	Rebind cbor.RawMessage `cbor:"6,keyasint,omitempty"`
}

// sigsFunc returns envelope field 6 entries for block i, given the id of
// block i−1 and block i's bytes; nil adds none.
type sigsFunc func(i uint64, prevID, block []byte) map[uint64][]byte

// handAppend appends a block to an HMAC ticket by hand: caveats cs, block
// field 6 jwk (raw CBOR; nil for none), envelope signatures from sigs.
func (g *gen) handAppend(t *token.Ticket, cs []caveat.Caveat, jwk cbor.RawMessage, sigs sigsFunc) wire.Ticket {
	if t == nil || g.err != nil {
		return wire.Ticket{}
	}
	w := unwire(g, t)
	b := g.blockBytes(rawBlock{Block: wire.Block{Caveats: g.rawCaveats(cs)}, Rebind: jwk})
	if sigs != nil {
		if h := sigs(uint64(len(w.Blocks)), sha([]byte(lID), w.Tail), b); len(h) > 0 {
			if w.Holder == nil {
				w.Holder = map[uint64][]byte{}
			}
			maps.Copy(w.Holder, h)
		}
	}
	w.Blocks, w.Tail = append(w.Blocks, b), mac(w.Tail, []byte(lHBlock), b)
	return w
}

func (g *gen) rawCaveats(cs []caveat.Caveat) map[uint64]cbor.RawMessage {
	m := map[uint64]cbor.RawMessage{}
	for _, c := range cs {
		v, err := wire.EncodeCaveat(c)
		g.fail(err)
		m[uint64(c.Kind)] = v
	}
	return m
}

func (g *gen) blockBytes(b rawBlock) []byte {
	data, err := enc.Marshal(b)
	g.fail(err)
	return data
}

// signedBy signs the rebinding message of FORMAT.md §4.4 with holder.
func (g *gen) signedBy(holder string) sigsFunc {
	return func(i uint64, prevID, b []byte) map[uint64][]byte {
		return map[uint64][]byte{i: g.holderSign(holder, bytes.Join([][]byte{[]byte(lRebind), prevID, b}, nil), false)}
	}
}

// fixedSig puts sig under key i of envelope field 6, whatever the block.
func fixedSig(i uint64, sig []byte) sigsFunc {
	return func(uint64, []byte, []byte) map[uint64][]byte { return map[uint64][]byte{i: sig} }
}

func jwkOf(s string) cbor.RawMessage { return bstr([]byte(s)) }

// rebinding adds the vectors of block field 6 and envelope field 6
// (FORMAT.md §2, §3, §4.4): each decoding rule as a malformed ticket, and
// each chain-time rule as an attenuation refusal of block 1, kind holder.
func (g *gen) rebinding() {
	base := g.boundTo("field6/base", "alice")
	if base == nil {
		return
	}
	alice := jwkOf(g.file.Holders["alice"].PublicJWK)
	toBob := []caveat.Caveat{g.bind("bob")}
	g.rebindMalformed(base, alice, toBob)
	g.rebindRefused(base, alice, toBob)
	g.rebindHistory()
}

func (g *gen) rebindMalformed(base *token.Ticket, alice cbor.RawMessage, toBob []caveat.Caveat) {
	bySig := g.signedBy("alice")
	sig := g.holderSign("alice", []byte("any message"), false)
	for _, c := range []struct {
		name, desc string
		w          wire.Ticket
	}{
		{"malformed/rebind-without-holder-caveat", "block 1 carries field 6 and alice's signature but no holder caveat",
			g.handAppend(base, g.caveats("calls=1"), alice, bySig)},
		{"malformed/rebind-empty-jwk", "block 1 rebinds to bob with an empty field 6",
			g.handAppend(base, toBob, bstr(nil), bySig)},
		{"malformed/rebind-signature-missing", "block 1 carries field 6, the envelope no signature under key 1",
			g.handAppend(base, toBob, alice, nil)},
		{"malformed/rebind-signature-without-jwk", "the envelope carries a signature under key 1, block 1 no field 6",
			g.handAppend(base, toBob, nil, fixedSig(1, sig))},
		{"malformed/rebind-signature-empty", "the signature under key 1 is empty",
			g.handAppend(base, toBob, alice, fixedSig(1, []byte{}))},
		{"malformed/rebind-signature-257-bytes", "the signature under key 1 is 257 bytes (the limit is 256)",
			g.handAppend(base, toBob, alice, fixedSig(1, make([]byte, 257)))},
		{"malformed/rebind-signature-for-no-block", "a correct rebinding, and a second signature under key 2 of a two-block ticket",
			g.handAppend(base, toBob, alice, func(i uint64, p, b []byte) map[uint64][]byte {
				m := bySig(i, p, b)
				m[2] = sig
				return m
			})},
		{"malformed/rebind-block-0", "block 0 binds to alice and carries field 6 with alice's signature under key 0",
			g.rebindBlock0(alice, sig)},
	} {
		g.addMalformedHex(c.name, c.desc, c.w)
	}
	// An empty envelope field 6 map: written by hand, as the encoder omits it.
	w := unwire(g, base)
	env := map[uint64]any{1: w.Version, 2: w.Blocks, 4: w.Tail, 6: map[uint64][]byte{}}
	data, err := enc.Marshal(env)
	g.fail(err)
	g.addMalformedBytes("malformed/rebind-signatures-empty-map", "the envelope carries field 6 as an empty map", data)
}

// rebindBlock0 mints, by hand, a block 0 that binds to alice and carries
// field 6, with a signature under key 0.
func (g *gen) rebindBlock0(jwk cbor.RawMessage, sig []byte) wire.Ticket {
	w := g.rawWire("root-h", "field6/block-0", nil)
	cs := append(g.caveats("tools=read_file"), g.bind("alice"))
	var b0 rawBlock
	g.fail(cbor.Unmarshal(w.Blocks[0], &b0))
	b0.Caveats, b0.Rebind = g.rawCaveats(cs), jwk
	b := g.blockBytes(b0)
	k := mac(fixedkey.Secret(g.keys["root-h"]), []byte(lKey), b0.ID)
	return wire.Ticket{Version: 1, Blocks: [][]byte{b}, Tail: mac(k, []byte(lHBlock), b), Holder: map[uint64][]byte{0: sig}}
}

func (g *gen) addMalformedBytes(name, desc string, data []byte) {
	var w wire.Ticket
	g.fail(cbor.Unmarshal(data, &w))
	v := Vector{Name: name, Description: desc, Error: "malformed", TicketHex: hex.EncodeToString(data)}
	g.fail(g.checkRequests(&v))
	g.file.Vectors = append(g.file.Vectors, v)
}

// rebindRefused: tickets that decode, whose block 1 the verifier refuses
// (attenuation, block 1, holder) in FORMAT.md §7 step 3.
func (g *gen) rebindRefused(base *token.Ticket, alice cbor.RawMessage, toBob []caveat.Caveat) {
	bySig := g.signedBy("alice")
	x := b64(g.holders["alice"].(ed25519.PrivateKey).Public().(ed25519.PublicKey))
	okp := func(extra string) cbor.RawMessage {
		return jwkOf(`{"crv":"Ed25519",` + extra + `"kty":"OKP","x":"` + x + `"}`)
	}
	flipped := func(i uint64, p, b []byte) map[uint64][]byte {
		m := bySig(i, p, b)
		m[i][10] ^= 1
		return m
	}
	other := g.boundTo("field6/other", "alice")
	moved := func(i uint64, _, b []byte) map[uint64][]byte {
		return bySig(i, sha([]byte(lID), unwire(g, other).Tail), b)
	}
	unbound := g.mint("field6/unbound", "root-h", g.caveats("tools=read_file", "until=2026-11-30T13:00:00Z"))
	refused := func(block int) []Request {
		return []Request{req().withProof(g.proofFor("bob", nil)).want(refWiden(block, "holder"))}
	}
	for _, c := range []struct {
		name, desc string
		w          wire.Ticket
	}{
		{"rebind/jwk-on-first-binding", "an unbound ticket: block 1 binds to bob and carries field 6 with alice's signature, though nothing was bound before",
			g.handAppend(unbound, toBob, alice, bySig)},
		{"rebind/private-jwk", "field 6 is alice's private JWK (member d)",
			g.handAppend(base, toBob, jwkOf(g.file.Holders["alice"].PrivateJWK), bySig)},
		{"rebind/jwk-alg-mismatch", "field 6 is alice's JWK with \"alg\":\"ES256\"",
			g.handAppend(base, toBob, okp(`"alg":"ES256",`), bySig)},
		{"rebind/jwk-alg-eddsa", "field 6 is alice's JWK with \"alg\":\"EdDSA\" and an extra member: allowed (the thumbprint ignores both)",
			g.handAppend(base, toBob, okp(`"alg":"EdDSA","use":"sig",`), bySig)},
		{"rebind/jwk-trailing-bits", "field 6 is alice's JWK with x's unused trailing bits set: the same key, thumbprint over " +
			"its canonical re-encoding: allowed", g.handAppend(base, toBob, jwkOf(`{"crv":"Ed25519","kty":"OKP","x":"`+setTrailingBit(x)+`"}`), bySig)},
		{"rebind/jwk-padded", "field 6 is alice's JWK with x padded with \"=\": refused",
			g.handAppend(base, toBob, jwkOf(`{"crv":"Ed25519","kty":"OKP","x":"`+x+`="}`), bySig)},
		{"rebind/jwk-duplicate-member", "field 6 is alice's JWK with member x twice",
			g.handAppend(base, toBob, jwkOf(`{"crv":"Ed25519","kty":"OKP","x":"`+x+`","x":"`+x+`"}`), bySig)},
		{"rebind/jwk-symmetric", "field 6 is a symmetric JWK (kty oct)",
			g.handAppend(base, toBob, jwkOf(`{"k":"`+x+`","kty":"oct"}`), bySig)},
		{"rebind/jwk-not-json", "field 6 is not a JSON object",
			g.handAppend(base, toBob, jwkOf(`["OKP"]`), bySig)},
		{"rebind/signature-flipped", "alice's rebinding signature with one bit flipped",
			g.handAppend(base, toBob, alice, flipped)},
		{"rebind/signature-from-other-chain", "alice signed block 1's exact bytes, but after another ticket's block 0: the signature does not move",
			g.handAppend(base, toBob, alice, moved)},
		{"rebind/signature-256-bytes", "a 256-byte signature: it decodes, and does not verify",
			g.handAppend(base, toBob, alice, fixedSig(1, make([]byte, 256)))},
		{"rebind/jwk-alg-ed25519", "field 6 is alice's JWK with \"alg\":\"Ed25519\", RFC 9864's name for EdDSA with an Ed25519 key: allowed",
			g.handAppend(base, toBob, okp(`"alg":"Ed25519",`), bySig)},
		{"rebind/jwk-alg-ed25519-lower-case", "field 6 is alice's JWK with \"alg\":\"ed25519\": refused (names are case-sensitive)",
			g.handAppend(base, toBob, okp(`"alg":"ed25519",`), bySig)},
		{"rebind/jwk-alg-ed25519-on-p256", "bound to carol (ES256): field 6 is carol's JWK with \"alg\":\"Ed25519\" and carol's signature: refused",
			g.handAppend(g.boundTo("field6/carol", "carol"), toBob, jwkOf(g.jwkWithAlg("carol", "Ed25519")), g.signedBy("carol"))},
		{"rebind/same-holder-unsigned", "block 1 names alice again, without field 6: naming the same holder again is a rebinding",
			g.handAppend(base, []caveat.Caveat{g.bind("alice")}, nil, nil)},
	} {
		reqs := refused(1)
		if c.name == "rebind/jwk-alg-eddsa" || c.name == "rebind/jwk-trailing-bits" || c.name == "rebind/jwk-alg-ed25519" {
			reqs = []Request{req().withProof(g.proofFor("bob", nil)).want()}
		}
		g.addRebind(c.name, c.desc, c.w, reqs)
	}
	same := g.handAppend(base, []caveat.Caveat{g.bind("alice")}, alice, bySig)
	g.addRebind("rebind/same-holder-signed", "block 1 names alice again, with field 6 and alice's signature: allowed",
		same, []Request{req().withProof(g.proofFor("alice", nil)).want()})
	g.smallOrderRebind()
	g.offCurveRebind()
}

// addRebind records a hand-made HMAC ticket; each request's proof is made
// for the ticket itself (a nil proof ticket in proofFor).
func (g *gen) addRebind(name, desc string, w wire.Ticket, reqs []Request) {
	if g.err != nil {
		return
	}
	t := g.decodeWire(w)
	if t == nil {
		return
	}
	for i := range reqs {
		if p := reqs[i].DPoP; p != nil && p.Proof == "" {
			reqs[i].DPoP = g.proofFor(p.Method, t)
		}
	}
	g.addForged(name, desc, t, "root-h", reqs)
}

// proofFor returns a placeholder naming holder (in Method) when t is nil,
// filled in by addRebind; else holder's proof for t.
func (g *gen) proofFor(holder string, t *token.Ticket) *DPoP {
	if t == nil {
		return &DPoP{Method: holder}
	}
	return &DPoP{Proof: g.handProof(holder, t, "jti-"+holder, "POST", mcpURI, Now, false), Method: "POST", URI: mcpURI}
}

// smallOrderRebind: a ticket bound to the thumbprint of the identity point
// as an Ed25519 key, rebound to mallory with the universal signature (R
// the identity, S 0), which crypto/ed25519 accepts under that key: only
// the small-order rule (FORMAT.md §4.4) refuses it.
func (g *gen) smallOrderRebind() {
	identity := append([]byte{1}, make([]byte, 31)...)
	jwk := `{"crv":"Ed25519","kty":"OKP","x":"` + b64(identity) + `"}`
	jkt := sha([]byte(jwk))
	h, err := caveat.NewHolder(b64(jkt))
	g.fail(err)
	base := g.mint("field6/small-order", "root-h", append(g.caveats("tools=read_file", "until=2026-11-30T13:00:00Z"), h))
	universal := append(append([]byte(nil), identity...), make([]byte, 32)...)
	if !ed25519.Verify(identity, []byte("any"), universal) {
		g.fail(errorf("field6: the universal signature does not verify"))
	}
	w := g.handAppend(base, []caveat.Caveat{g.bind("mallory")}, jwkOf(jwk), fixedSig(1, universal))
	g.addRebind("rebind/jwk-small-order", "bound to the thumbprint of the Ed25519 identity point; rebound to mallory "+
		"with the universal signature, which crypto/ed25519 accepts: refused because the key has small order",
		w, []Request{req().withProof(g.proofFor("mallory", nil)).want(refWiden(1, "holder"))})
}

// offCurveRebind: a ticket bound to the thumbprint of carol's ES256 JWK
// with y changed (so that the point is not on P-256), rebound with that
// JWK: only the on-curve rule refuses the key itself.
func (g *gen) offCurveRebind() {
	pub := g.holders["carol"].(*ecdsa.PrivateKey).PublicKey
	raw, err := pub.Bytes() // 0x04 ‖ x ‖ y
	g.fail(err)
	if err != nil {
		return
	}
	y := append([]byte(nil), raw[33:]...)
	y[31] ^= 1
	jwk := `{"crv":"P-256","kty":"EC","x":"` + b64(raw[1:33]) + `","y":"` + b64(y) + `"}`
	h, err := caveat.NewHolder(b64(sha([]byte(jwk))))
	g.fail(err)
	base := g.mint("field6/off-curve", "root-h", append(g.caveats("tools=read_file", "until=2026-11-30T13:00:00Z"), h))
	w := g.handAppend(base, []caveat.Caveat{g.bind("bob")}, jwkOf(jwk), g.signedBy("carol"))
	g.addRebind("rebind/jwk-off-curve", "bound to the thumbprint of carol's ES256 JWK with the last bit of y flipped "+
		"(not a point of P-256), rebound to bob with that JWK and carol's signature: the thumbprint matches, the key is refused",
		w, []Request{req().withProof(g.proofFor("bob", nil)).want(refWiden(1, "holder"))})
}

// rebindHistory: the current holder is the last holder of the blocks
// before: alice → bob (signed by alice) → carol, signed by alice (refused
// at block 2) or by bob (allowed).
func (g *gen) rebindHistory() {
	base := g.boundTo("field6/history", "alice")
	toBob := g.decodeWire(g.handAppend(base, []caveat.Caveat{g.bind("bob")}, jwkOf(g.file.Holders["alice"].PublicJWK), g.signedBy("alice")))
	toCarol := []caveat.Caveat{g.bind("carol")}
	for _, c := range []struct {
		name, signer string
		want         []Refusal
	}{{"rebind/twice-signed-by-first-holder", "alice", []Refusal{refWiden(2, "holder")}}, {"rebind/twice", "bob", nil}} {
		w := g.handAppend(toBob, toCarol, jwkOf(g.file.Holders[c.signer].PublicJWK), g.signedBy(c.signer))
		g.addRebind(c.name, "bound to alice, rebound to bob by alice, then to carol by "+c.signer+
			": only the current holder (the last holder of the blocks before) may rebind",
			w, []Request{req().withProof(g.proofFor("carol", nil)).want(c.want...)})
	}
}

// setTrailingBit sets the lowest unused bit of the last character of an
// unpadded base64url string whose length is not a multiple of 4.
func setTrailingBit(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := []byte(s)
	b[len(b)-1] = alphabet[strings.IndexByte(alphabet, b[len(b)-1])|1]
	return string(b)
}
