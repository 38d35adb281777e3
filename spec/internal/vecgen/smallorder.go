package vecgen

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
)

// smallOrder are the 14 encodings of Ed25519 points of small order that
// spec/FORMAT.md §4.2 lists, written out again here on purpose.
var smallOrder = []string{
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000080",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
}

// identity is the identity point's encoding; universal is a signature
// that Ed25519 verification (cofactorless, as FORMAT.md §4.2 states)
// accepts under it for every message: R = identity, S = 0.
var identity, universal = mustHex(smallOrder[2]), append(mustHex(smallOrder[2]), make([]byte, 32)...)

// smallOrderKeys adds Ed25519 tickets whose block carries a next key of
// small order, signed correctly up to that block and then sealed or
// extended with the universal signature: every one is malformed (§4.2).
func (g *gen) smallOrderKeys() {
	if g.err != nil {
		return
	}
	if !ed25519.Verify(identity, []byte("any message"), universal) {
		g.fail(errorf("smallorder: the universal signature does not verify; the vectors would show nothing"))
		return
	}
	root := ed25519.PrivateKey(fixedkey.Secret(g.keys["root-e"]))
	id := make([]byte, 16)
	detrand.New("smallorder id").Read(id)
	tools := map[uint64]cbor.RawMessage{1: mustHex("8169726561645f66696c65")}
	for i, so := range smallOrder {
		b0, err := enc.Marshal(wire.Block{Mode: 2, KeyID: "root-e", ID: id, Caveats: tools, Next: mustHex(so)})
		g.fail(err)
		sig0 := ed25519.Sign(root, cat([]byte(lEBlock), b0))
		g.addMalformedHex(fmt.Sprintf("malformed/small-order-next-key-%d", i),
			"block 0's next key is "+so+", of small order (FORMAT.md §4.2); the ticket is sealed with R = 0100…, S = 0",
			wire.Ticket{Version: 1, Blocks: [][]byte{b0}, Sigs: [][]byte{sig0}, Seal: universal})
	}

	// Block 1 sets the identity as next key; a thief appends block 2 with
	// the universal signature and the tail of a key of his own.
	k1 := ed25519.NewKeyFromSeed(mustSeed("smallorder k1"))
	thief := mustSeed("smallorder thief")
	b0, err := enc.Marshal(wire.Block{Mode: 2, KeyID: "root-e", ID: id, Caveats: tools, Next: k1.Public().(ed25519.PublicKey)})
	g.fail(err)
	b1, err := enc.Marshal(wire.Block{Caveats: map[uint64]cbor.RawMessage{3: mustHex("81647372632f")}, Next: identity})
	g.fail(err)
	b2, err := enc.Marshal(wire.Block{Caveats: map[uint64]cbor.RawMessage{}, Next: ed25519.NewKeyFromSeed(thief).Public().(ed25519.PublicKey)})
	g.fail(err)
	sig0 := ed25519.Sign(root, cat([]byte(lEBlock), b0))
	sig1 := ed25519.Sign(k1, cat([]byte(lEBlock), sig0, b1))
	if !ed25519.Verify(identity, cat([]byte(lEBlock), sig1, b2), universal) {
		g.fail(errorf("smallorder: block 2's universal signature does not verify"))
	}
	g.addMalformedHex("malformed/small-order-next-key-block-1",
		"block 1's next key is the identity point; block 2 is appended with the universal signature (R = 0100…, S = 0)",
		wire.Ticket{Version: 1, Blocks: [][]byte{b0, b1, b2}, Sigs: [][]byte{sig0, sig1, universal}, Tail: thief})
}

func mustSeed(s string) []byte {
	b := make([]byte, ed25519.SeedSize)
	detrand.New(s).Read(b)
	return b
}

// addMalformedHex adds a vector of w's encoding that decoding must refuse.
func (g *gen) addMalformedHex(name, desc string, w wire.Ticket) {
	data, err := enc.Marshal(w)
	g.fail(err)
	v := Vector{Name: name, Description: desc, Error: "malformed", TicketHex: hex.EncodeToString(data)}
	g.fail(g.checkRequests(&v))
	g.file.Vectors = append(g.file.Vectors, v)
}
