package vecgen

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// ReceiptOrigin is the origin of every receipt log in the vectors.
const ReceiptOrigin = "example.com/receipts/agent-1"

// receiptKeyName is the signed-note name of every receipt key.
const receiptKeyName = "example.com/receipts"

// ReceiptBase is the time of the first record of every log.
var ReceiptBase = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

type rgen struct {
	file ReceiptFile
	keys map[string]*key.Signing
	err  error
}

func (g *rgen) fail(err error) {
	if g.err == nil && err != nil {
		g.err = err
	}
}

// GenerateReceipts returns spec/vectors/receipts.json, byte for byte as
// committed. Signatures, hashes, the origin hash and the Merkle roots are
// computed here with the standard library from chain/FORMAT.md, and the
// generator fails if package chain disagrees with any vector.
func GenerateReceipts() ([]byte, error) {
	oh := sha256.Sum256([]byte("tickettool/v1 receipt origin\x00" + ReceiptOrigin))
	g := &rgen{keys: map[string]*key.Signing{}, file: ReceiptFile{
		Description: "tickettool receipt log v1 test vectors (chain/FORMAT.md). Every key and time is fixed; " +
			"`go generate ./spec` regenerates this file byte for byte. Run them as spec/README.md says.",
		Origin: ReceiptOrigin, OriginHash: hex.EncodeToString(oh[:]), Keys: map[string]ReceiptKey{},
	}}
	g.key("ed25519", key.Ed25519, "spec receipt ed25519")
	g.key("hmac", key.HMACSHA256, "spec receipt hmac")
	g.key("ed25519-other", key.Ed25519, "spec receipt ed25519 other")
	g.key("hmac-other", key.HMACSHA256, "spec receipt hmac other")
	for _, k := range []string{"ed25519", "hmac"} {
		log := g.validLog(k)
		g.tampered(k, log)
	}
	if g.err != nil {
		return nil, g.err
	}
	out, err := json.MarshalIndent(g.file, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// key derives a key from a fixed label: its Ed25519 seed or HMAC secret
// is SHA-256(label || 0^8) (detrand's first block), taken directly rather
// than through key.Generate and internal/randsrc, for how
// Generate consumes randomness is not a promise.
func (g *rgen) key(id string, alg key.Alg, label string) {
	secret := make([]byte, 32)
	detrand.New(label).Read(secret)
	var k *key.Signing
	var err error
	if alg == key.Ed25519 {
		k, err = key.NewEd25519(receiptKeyName, ed25519.NewKeyFromSeed(secret))
	} else {
		k, err = key.NewHMAC(receiptKeyName, secret)
	}
	if err != nil {
		g.fail(err)
		return
	}
	g.keys[id] = k
	nv, err := k.Verifying().NoteVerifier()
	if err != nil {
		g.fail(err)
		return
	}
	rk := ReceiptKey{Alg: algName(alg), Name: k.ID(), KeyHash: fmt.Sprintf("%08x", nv.KeyHash())}
	var want uint32
	if alg == key.Ed25519 {
		pub := ed25519.NewKeyFromSeed(secret).Public().(ed25519.PublicKey)
		rk.Seed = hex.EncodeToString(secret)
		rk.Public = hex.EncodeToString(pub)
		rk.VerifierKey = k.Verifying().String()
		want = noteKeyHash(k.ID(), append([]byte{1}, pub...))
	} else {
		rk.Secret = hex.EncodeToString(secret)
		id := sha256.Sum256(append([]byte("tickettool/v1 hmac key id\x00"), secret...))
		want = noteKeyHash(k.ID(), append([]byte("\xfftickettool/v1 hmac-sha256"), id[:]...))
	}
	if want != nv.KeyHash() {
		g.fail(fmt.Errorf("vecgen: receipt key %s: key hash %08x, FORMAT.md §3 gives %08x", id, nv.KeyHash(), want))
	}
	g.file.Keys[id] = rk
}

// algName is the receipt vectors' name of an algorithm (field 15 of a
// record, chain/FORMAT.md §1): "ed25519" or "hmac-sha256".
func algName(a key.Alg) string {
	if a == key.HMACSHA256 {
		return "hmac-sha256"
	}
	return a.String()
}

func noteKeyHash(name string, typeAndKey []byte) uint32 {
	h := sha256.Sum256(append([]byte(name+"\n"), typeAndKey...))
	return binary.BigEndian.Uint32(h[:4])
}

// sign returns the record's bytes, signed per FORMAT.md §1.1 with the
// standard library, and checks chain.Record.Marshal agrees.
func (g *rgen) sign(kid string, r *chain.Record) (input, rec []byte) {
	input, rec = g.signRaw(kid, r)
	if b, err := r.Marshal(); input != nil && (err != nil || !bytes.Equal(b, rec)) {
		g.fail(fmt.Errorf("vecgen: record %d: chain.Marshal disagrees with FORMAT.md §1.1 (%v)", r.Seq, err))
	}
	return input, rec
}

// signRaw is sign without asking package chain to encode the record, for
// records chain must refuse (over 16384 bytes).
func (g *rgen) signRaw(kid string, r *chain.Record) (input, rec []byte) {
	k := g.keys[kid]
	r.Alg, r.Sig = k.Alg(), nil
	input, err := r.SigningInput()
	if err != nil {
		g.fail(err)
		return nil, nil
	}
	if k.Alg() == key.Ed25519 {
		r.Sig = ed25519.Sign(ed25519.PrivateKey(fixedkey.Secret(k)), input)
	} else {
		m := hmac.New(sha256.New, fixedkey.Secret(k))
		m.Write(input)
		r.Sig = m.Sum(nil)
	}
	e := input[len("tickettool/v1 receipt\x00"):]
	// FORMAT.md §1.1: the signature's pair (key 16) goes after every
	// other key but 17, whose pair, when present, ends E.
	tail := 0
	if len(r.Approvals) > 0 {
		var list [][]any
		for _, a := range r.Approvals {
			list = append(list, []any{a.KeyID, a.ID[:]})
		}
		v, err := cbor.Marshal(list)
		if err != nil {
			g.fail(err)
			return nil, nil
		}
		tail = 1 + len(v)
	}
	cut := len(e) - tail
	rec = append([]byte{e[0] + 1}, e[1:cut]...)
	rec = append(append(rec, 0x10, 0x58, byte(len(r.Sig))), r.Sig...)
	rec = append(rec, e[cut:]...)
	return input, rec
}

// receiptRecords are the records of every valid log, every kind at least
// once; time is ReceiptBase plus ms (two records share a time: time may
// stand still, never go back). The ticket fields have the shapes
// chain/FORMAT.md §1.2 gives them: ticket is a 32-byte ID_n (here of a
// ticket tid and its child cid, n = 0 and 1), family the 16-byte id of
// block 0 (fixed values, not computed from a real ticket).
func receiptRecords() []chain.Record {
	fam, _ := hex.DecodeString("5f1c0d3e9a7b2c4d6e8f0a1b2c3d4e5f")
	t0, c1 := sha256.Sum256([]byte("spec receipt ticket ID_0")), sha256.Sum256([]byte("spec receipt child ID_1"))
	tid, cid := t0[:], c1[:]
	did1, did2 := sha256.Sum256([]byte("spec receipt discharge 1")), sha256.Sum256([]byte("spec receipt discharge 2"))
	rules := []string{"src/discount/rules.go"}
	at := func(ms int64) time.Time { return ReceiptBase.Add(time.Duration(ms) * time.Millisecond) }
	return []chain.Record{
		{Time: at(0), Kind: chain.KindIntent, Note: "upgrade pricing deps"},
		{Time: at(1500), Kind: chain.KindMinted, TicketID: tid, FamilyID: fam, Note: "tools=read_file,write_file"},
		{Time: at(2000), Kind: chain.KindDelegated, TicketID: cid, FamilyID: fam, Block: 1, Note: "tools=read_file paths=src/discount/"},
		{Time: at(3000), Kind: chain.KindAllowed, TicketID: cid, FamilyID: fam, Block: 1, Tool: "read_file", Op: "invoke", Subjects: rules},
		{Time: at(3000), Kind: chain.KindCaptured, TicketID: cid, FamilyID: fam, Block: 1, Note: "request 1"},
		{Time: at(4250), Kind: chain.KindRefused, TicketID: cid, FamilyID: fam, Block: 1, Tool: "write_file", Op: "invoke",
			Subjects: []string{"src/discount/a.go", "src/refund/x.go"}, Check: "caveat", Caveat: "tools", Reason: "write_file is not in tools=read_file"},
		// An allowed call two discharges allowed (field 17), and
		// a record with all 17 fields (head b1), signature pair not last.
		{Time: at(4500), Kind: chain.KindAllowed, TicketID: cid, FamilyID: fam, Block: 1, Tool: "post_summary", Op: "invoke", Subjects: rules,
			Approvals: []chain.Approval{{KeyID: "pricing-lead", ID: did1}, {KeyID: "legal", ID: did2}}},
		{Time: at(4750), Kind: chain.KindOther, TicketID: cid, FamilyID: fam, Block: 1, Tool: "post_summary", Op: "invoke", Subjects: rules,
			Check: "approval", Caveat: "approval", Reason: "every field", Note: "a record with all 17 fields",
			Approvals: []chain.Approval{{KeyID: "pricing-lead", ID: did1}}},
		{Time: at(5000), Kind: chain.KindAllowed, TicketID: cid, FamilyID: fam, Block: 1, Tool: "read_file", Op: "invoke", Subjects: rules},
		{Time: at(5999), Kind: chain.KindReleased, TicketID: cid, FamilyID: fam, Block: 1, Note: "request 2"},
		{Time: at(6500), Kind: chain.KindReplayed, TicketID: cid, FamilyID: fam, Block: 1, Tool: "read_file", Op: "invoke", Subjects: rules,
			Note: "operation 8e2f0c1a-retry replays request 2"},
		{Time: at(7000), Kind: chain.KindOther, Note: "session closed"},
	}
}

// chainRecords signs rs into a log under key from prev; it returns the
// records' bytes.
func (g *rgen) chainRecords(kid string, rs []chain.Record, prev [32]byte, seq uint64) [][]byte {
	var out [][]byte
	for _, r := range rs {
		r.Seq, r.Prev = seq, prev
		_, b := g.sign(kid, &r)
		out = append(out, b)
		prev, seq = sha256.Sum256(b), seq+1
	}
	return out
}

// merkleRoot is the RFC 6962 §2.1 Merkle tree hash of leaves.
func merkleRoot(leaves [][]byte) [32]byte {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return sha256.Sum256(append([]byte{0}, leaves[0]...))
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := merkleRoot(leaves[:k]), merkleRoot(leaves[k:])
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}
