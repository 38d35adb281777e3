package vecgen

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base32"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// The labels of FORMAT.md §4.6, restated from the spec.
const (
	lBind      = "tickettool/v1 approval\x00"
	lDischarge = "tickettool/v1 discharge\x00"
)

// approverKeys makes the approvers: pricing-lead, other-lead under its own
// id, and pricing-lead-2, another key under the id pricing-lead; for the
// threshold approvals alice, bob and carol, and bob-2, another key under
// the id bob.
func (g *gen) approverKeys() {
	g.file.Approvers = map[string]Approver{}
	g.approvers = map[string]*key.Signing{}
	for _, a := range []struct{ name, id string }{{"pricing-lead", "pricing-lead"}, {"other-lead", "other-lead"}, {"pricing-lead-2", "pricing-lead"},
		{"alice", "alice"}, {"bob", "bob"}, {"carol", "carol"}, {"bob-2", "bob"}} {
		k, err := rootKey("spec approver "+a.name, a.id, key.Ed25519)
		g.fail(err)
		if err != nil {
			return
		}
		g.approvers[a.name] = k
		g.file.Approvers[a.name] = Approver{KeyID: a.id, Seed: hex.EncodeToString(ed25519.PrivateKey(fixedkey.Secret(k)).Seed()),
			Public: hex.EncodeToString(fixedkey.Public(k.Verifying()))}
	}
}

// approval is the approval caveat naming approver, with a fixed nonce.
func (g *gen) approval(approver string, nonce byte, location string) caveat.Caveat {
	k := g.approvers[approver]
	if k == nil {
		g.fail(errorf("no approver " + approver))
		return caveat.Caveat{}
	}
	a := caveat.Approver{KeyID: k.ID(), Nonce: [16]byte{0x5a, nonce}, Location: location}
	copy(a.Key[:], fixedkey.Public(k.Verifying()))
	c, err := caveat.NewApproval(a)
	g.fail(err)
	return c
}

// discharge is approver's discharge of block j of t, with the caveats'
// texts, its nonce from the stream seed.
func (g *gen) discharge(seed, approver string, t *token.Ticket, j int, texts ...string) string {
	if g.err != nil || t == nil {
		return ""
	}
	b, err := t.Binding(j)
	if err != nil {
		g.fail(fmt.Errorf("vecgen: %s: %w", seed, err))
		return ""
	}
	defer randsrc.Fix(detrand.New(seed))()
	cs := g.caveats(texts...)
	d, err := token.Approve(g.approvers[approver], b, cs, fixedkey.ApprovedAt(cs))
	if err != nil {
		g.fail(fmt.Errorf("vecgen: %s: %w", seed, err))
		return ""
	}
	return d.String()
}

// handDischarge encodes a discharge by hand (block fields by key, any
// signature): for the malformed cases Approve refuses to make.
func handDischarge(block map[uint64]any, extra map[uint64]any) string {
	return signedDischarge(block, extra, nil)
}

// signedDischarge is handDischarge signed with priv, when not nil, over
// L_DISCHARGE ‖ the block (FORMAT.md §4.6).
func signedDischarge(block map[uint64]any, extra map[uint64]any, priv ed25519.PrivateKey) string {
	em, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic(err)
	}
	bb, err := em.Marshal(block)
	if err != nil {
		panic(err)
	}
	env := map[uint64]any{1: 1, 2: bb, 3: bytes.Repeat([]byte{0x55}, 64)}
	if priv != nil {
		env[3] = ed25519.Sign(priv, append([]byte(lDischarge), bb...))
	}
	for k, v := range extra {
		env[k] = v
	}
	raw, err := em.Marshal(env)
	if err != nil {
		panic(err)
	}
	return token.DischargePrefix + base64.RawURLEncoding.EncodeToString(raw)
}

// decodeDischarge reads a discharge's text per FORMAT.md §4.6 with the
// CBOR library alone: its parts, its block and its DID.
func decodeDischarge(text string) (*Discharge, *wire.DischargeBlock, error) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(text, token.DischargePrefix))
	if err != nil {
		return nil, nil, err
	}
	var w wire.Discharge
	if err := cbor.Unmarshal(raw, &w); err != nil {
		return nil, nil, err
	}
	var b wire.DischargeBlock
	if err := cbor.Unmarshal(w.Block, &b); err != nil {
		return nil, nil, err
	}
	return &Discharge{Text: text, Hex: hex.EncodeToString(raw), Block: hex.EncodeToString(w.Block),
		Signature: hex.EncodeToString(w.Sig), ID: hex.EncodeToString(sha([]byte(lID), w.Sig))}, &b, nil
}

// bindings computes Bind_j of every approval caveat of a valid chain from
// its blocks' bytes (FORMAT.md §4.6), and checks token's.
func bindings(im *Intermediate, t *token.Ticket) ([]Binding, error) {
	var out []Binding
	var prefix []byte
	for j, hb := range im.Blocks {
		b := mustHex(hb)
		prefix = binary.BigEndian.AppendUint64(prefix, uint64(len(b)))
		prefix = append(prefix, b...)
		var wb wire.Block
		if err := cbor.Unmarshal(b, &wb); err != nil {
			return nil, err
		}
		if _, ok := wb.Caveats[14]; !ok {
			continue
		}
		p := sha(prefix)
		bind := sha([]byte(lBind), p)
		got, err := t.Binding(j)
		if err != nil || !bytes.Equal(got[:], bind) {
			return nil, fmt.Errorf("binding of block %d differs from the spec", j)
		}
		code := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(bind)[:10]
		out = append(out, Binding{Block: j, Prefix: hex.EncodeToString(p), Binding: hex.EncodeToString(bind), Code: code[:5] + "-" + code[5:]})
	}
	return out, nil
}

// expectApprovals fills in, for an allowed request whose Approvals name
// the used discharges (block and index), the approver's key id, the DID,
// and the discharges' budgets after the ticket's, all from the spec; and
// the vector's list of discharges.
func expectApprovals(v *Vector, r *Request) error {
	for _, text := range r.Discharges {
		d, _, err := decodeDischarge(text)
		if err != nil || !strings.HasPrefix(text, token.DischargePrefix) {
			continue // a malformed one: not listed
		}
		if !containsText(v.Discharges, text) {
			v.Discharges = append(v.Discharges, *d)
		}
	}
	if r.Expect != "allowed" {
		r.Approvals = nil
		return nil
	}
	r.Approvals = append([]Approval(nil), r.Approvals...) // shared by copies of the request
	for i := range r.Approvals {
		a := &r.Approvals[i]
		d, b, err := decodeDischarge(r.Discharges[a.Discharge])
		if err != nil {
			return err
		}
		a.KeyID, a.ID = b.KeyID, d.ID
		idx := a.Discharge
		if raw, ok := b.Caveats[5]; ok {
			var n uint64
			if err := cbor.Unmarshal(raw, &n); err != nil {
				return err
			}
			r.Budgets = append(r.Budgets, Budget{Block: a.Block, Kind: "calls", Key: d.ID, Limit: strconv.FormatUint(n, 10), Discharge: &idx})
		}
		if raw, ok := b.Caveats[10]; ok {
			var am struct {
				_        struct{} `cbor:",toarray"`
				Micros   uint64
				Currency string
			}
			if err := cbor.Unmarshal(raw, &am); err != nil {
				return err
			}
			r.Budgets = append(r.Budgets, Budget{Block: a.Block, Kind: "total", Key: d.ID,
				Limit: strconv.FormatUint(am.Micros, 10), Currency: am.Currency, Discharge: &idx})
		}
	}
	return nil
}

func containsText(ds []Discharge, text string) bool {
	for _, d := range ds {
		if d.Text == text {
			return true
		}
	}
	return false
}

// expectCharges fills in a sequence's charges with the model of
// spec/README.md: one counter per key, kind and currency, charged all or
// nothing.
func expectCharges(v *Vector) error {
	spent := map[string]uint64{}
	for i := range v.Requests {
		r := &v.Requests[i]
		if r.Expect != "allowed" {
			continue
		}
		var cost *caveat.Amount
		if r.Cost != "" {
			a, err := caveat.ParseAmount(r.Cost)
			if err != nil {
				return err
			}
			cost = &a
		}
		r.Charge = "ok"
		amounts := make([]uint64, len(r.Budgets))
		for k, b := range r.Budgets {
			limit, _ := strconv.ParseUint(b.Limit, 10, 64)
			amounts[k] = 1
			if b.Kind == "total" {
				if cost == nil || cost.Currency != b.Currency {
					amounts[k] = limit + 1
				} else {
					amounts[k] = cost.Micros
				}
			}
			if spent[b.Key+b.Kind+b.Currency]+amounts[k] > limit {
				r.Charge, r.Exhausted = "exhausted", &k
				break
			}
		}
		if r.Charge == "ok" {
			for k, b := range r.Budgets {
				spent[b.Key+b.Kind+b.Currency] += amounts[k]
			}
		}
	}
	return nil
}
