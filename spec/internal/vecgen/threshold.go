package vecgen

import (
	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/token"
)

// threshold is the threshold approval naming approvers, needing need of
// them, with a fixed nonce.
func (g *gen) threshold(need int, nonce byte, location string, approvers ...string) caveat.Caveat {
	var ms []caveat.Member
	for _, name := range approvers {
		k := g.approvers[name]
		if k == nil {
			g.fail(errorf("no approver " + name))
			return caveat.Caveat{}
		}
		ms = append(ms, caveat.Member{KeyID: k.ID(), Key: [32]byte(fixedkey.Public(k.Verifying()))})
	}
	c, err := caveat.NewThreshold(need, ms, [16]byte{0x5a, nonce}, location)
	g.fail(err)
	return c
}

// thresholdVectors are the cases of spec/README.md "Threshold approvals"
// (FORMAT.md §4.6 and §7 step 6a, sub-step 8; CAVEATS.md "Narrowing").
// The mode does not matter to them: HMAC only.
func (g *gen) thresholdVectors() {
	const p, root = "approval/threshold/", "root-h"
	ok := rq(t12, "read_file", rules, api)
	b0 := g.caveats(block0...)
	all := []caveat.Caveat{g.threshold(2, 7, "", "alice", "bob", "carol")}
	tk := g.mint(p+"two-of-three", root, b0, all)
	dis := func(name, approver string, t *token.Ticket, j int, texts ...string) string {
		return g.discharge(p+name, approver, t, j, append([]string{dUntil}, texts...)...)
	}
	a, b, c := dis("alice d", "alice", tk, 1), dis("bob d", "bob", tk, 1), dis("carol d", "carol", tk, 1)
	thr := ref("approval", 1, "approval")
	g.add(Vector{Name: p + "allowed", Description: "2 of alice, bob, carol in block 1: the discharges of alice and bob, in either order, allow; all three allow, each used",
		Requests: []Request{ok.with(a, b).using(1, 0, 1, 1), ok.with(c, a).using(1, 0, 1, 1), ok.with(a, b, c).using(1, 0, 1, 1, 1, 2)}}, tk, root, true)
	g.add(Vector{Name: p + "one-short", Description: "k−1 discharges (alice's): refused with the reason \"approvals required: 2 of 3: approved by alice; waiting for one of bob, carol (code " +
		g.code(tk, 1) + ")\"", Requests: []Request{ok.with(a).want(thr)}}, tk, root, false)
	g.add(Vector{Name: p + "none", Description: "no discharge: refused with the reason \"approvals required: 2 of 3: waiting for two of alice, bob, carol (code " +
		g.code(tk, 1) + ")\"", Requests: []Request{ok.want(thr)}}, tk, root, false)
	a2 := dis("alice d2", "alice", tk, 1, "tools=read_file")
	g.add(Vector{Name: p + "same-key", Description: "two discharges by alice: one refusal (\"more than one discharge from alice\"), neither checked, " +
		"and the threshold refusal; with bob's as well, alice still counts for nothing",
		Requests: []Request{ok.with(a, a2).want(thr, thr), ok.with(a, b, a2).want(thr, thr)}}, tk, root, false)
	out := dis("outsider d", "other-lead", tk, 1)
	g.add(Vector{Name: p + "outsider", Description: "alice's discharge and one by other-lead, not an approver: the key-id refusal, then the threshold's",
		Requests: []Request{ok.with(a, out).want(thr, thr)}}, tk, root, false)
	g.add(Vector{Name: p + "bad-signature", Description: "alice's discharge and one under bob's key id signed by another key: the signature refusal, then the threshold's",
		Requests: []Request{ok.with(a, dis("bob forged d", "bob-2", tk, 1)).want(thr, thr)}}, tk, root, false)
	g.add(Vector{Name: p + "discharge-caveat", Description: "alice's and bob's discharges, bob's for another tool: bob's caveat refusal, then the threshold's",
		Requests: []Request{ok.with(a, dis("bob tools d", "bob", tk, 1, "tools=write_file")).want(ref("approval", 1, "tools"), thr)}}, tk, root, false)

	tl := g.mint(p+"location", root, b0, []caveat.Caveat{g.threshold(2, 8, loc, "alice", "bob", "carol")})
	g.add(Vector{Name: p + "location", Description: "a threshold approval with a location: the reason is \"approvals required: 2 of 3: waiting for two of alice, bob, carol at " + loc + " (code " +
		g.code(tl, 1) + ")\"", Requests: []Request{ok.want(thr)}}, tl, root, false)

	g.restatements(p, tk, a, b, c)
	g.thresholdMalformed(p)
}

// restatements adds the vectors of an approval restated in block 2, its
// discharges still bound to block 1.
func (g *gen) restatements(p string, tk *token.Ticket, a, b, c string) {
	const root = "root-h"
	if tk == nil {
		return
	}
	ok := rq(t12, "read_file", rules, api)
	restate := func(name string, cs ...caveat.Caveat) *token.Ticket {
		t, err := attenuateFixed(p+name, tk, cs, nil)
		g.fail(err)
		return t
	}
	raised := restate("raised", g.threshold(3, 7, "", "alice", "bob", "carol"))
	g.add(Vector{Name: p + "raised", Description: "block 2 restates block 1's approval (same nonce) with 3 of 3: alice and bob no longer suffice; all three, bound to block 1, allow",
		Requests: []Request{ok.with(a, b).want(ref("approval", 1, "approval")), ok.with(a, b, c).using(1, 0, 1, 1, 1, 2)}}, raised, root, true)
	removed := restate("removed", g.threshold(2, 7, "", "alice", "bob"))
	g.add(Vector{Name: p + "removed", Description: "block 2 restates block 1's approval without carol: alice and bob allow; carol's discharge is now an outsider's",
		Requests: []Request{ok.with(a, b).using(1, 0, 1, 1), ok.with(a, c).want(ref("approval", 1, "approval"), ref("approval", 1, "approval"))}}, removed, root, false)
	g.add(Vector{Name: p + "removed-to-one", Description: "2 of alice, bob, carol restated in block 2 as alice alone (a threshold of 1, the single form) is refused: the threshold is lowered",
		Requests: []Request{ok.with(a).want(refWiden(2, "approval"))}}, g.handRestate(tk, g.threshold(1, 7, "", "alice")), root, false)
	g.add(Vector{Name: p + "lowered", Description: "block 2 restates block 1's 2 of 3 as 1 of 3: a widening, refused (attenuation, block 2, kind approval)",
		Requests: []Request{ok.with(a).want(refWiden(2, "approval"))}}, g.handRestate(tk, g.threshold(1, 7, "", "alice", "bob", "carol")), root, false)
	g.add(Vector{Name: p + "added", Description: "block 2 restates block 1's approval with other-lead added: a widening",
		Requests: []Request{ok.with(a, b).want(refWiden(2, "approval"))}}, g.handRestate(tk, g.threshold(2, 7, "", "alice", "bob", "carol", "other-lead")), root, false)
	g.add(Vector{Name: p + "other-key", Description: "block 2 restates block 1's approval naming bob with another key (bob-2's): a widening",
		Requests: []Request{ok.with(a, b).want(refWiden(2, "approval"))}}, g.handRestate(tk, g.threshold(2, 7, "", "alice", "bob-2", "carol")), root, false)
	d2 := g.discharge(p+"bound to 2 d", "alice", raised, 2, dUntil)
	g.add(Vector{Name: p + "bound-to-restatement", Description: "a discharge bound to the restating block 2 matches no approval: the threshold refusal, then block −1",
		Requests: []Request{ok.with(a, b, d2).want(ref("approval", 1, "approval"), ref("approval", -1, ""))}}, raised, root, false)
	other := restate("new-nonce", g.threshold(1, 9, "", "alice", "bob", "carol"))
	g.add(Vector{Name: p + "new-nonce", Description: "1 of 3 in block 2 under another nonce is a second approval, not a lowering: both must be met, each with discharges bound to its block",
		Requests: []Request{ok.with(a, b).want(ref("approval", 2, "approval")),
			ok.with(a, b, g.discharge(p+"new-nonce d", "carol", other, 2, dUntil)).using(1, 0, 1, 1, 2, 2)}}, other, root, false)
}

// handRestate appends block 2, the caveat c, to tk by hand, without the
// narrowing check Attenuate makes.
func (g *gen) handRestate(tk *token.Ticket, c caveat.Caveat) *token.Ticket {
	return g.appendHMAC(tk, []caveat.Caveat{c}, "")
}

// code is the code of Bind_j of t, or "" when there is no ticket.
func (g *gen) code(t *token.Ticket, j int) string {
	if t == nil {
		return ""
	}
	b, err := t.Binding(j)
	g.fail(err)
	return token.BindingCode(b)
}

// thresholdMalformed adds threshold approvals whose encoding breaks a rule
// of FORMAT.md §5: each ticket is malformed.
func (g *gen) thresholdMalformed(p string) {
	keys := map[string][]byte{}
	for _, name := range []string{"alice", "bob", "carol"} {
		if k := g.approvers[name]; k != nil {
			keys[name] = fixedkey.Public(k.Verifying())
		}
	}
	nonce := []byte{0x5a, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	value := func(need any, ids []string, ks [][]byte, extra map[uint64]any) []byte {
		m := map[uint64]any{3: nonce, 5: need, 6: ids, 7: ks}
		for k, v := range extra {
			m[k] = v
		}
		b, err := enc.Marshal(m)
		g.fail(err)
		return b
	}
	ab := []string{"alice", "bob"}
	identity := make([]byte, 32)
	identity[0] = 1
	kab := [][]byte{keys["alice"], keys["bob"]}
	nine := make([]string, 9)
	knine := make([][]byte, 9)
	for i := range nine {
		nine[i] = "approver-" + string(rune('1'+i))
		knine[i] = append([]byte(nil), keys["carol"]...)
		knine[i][0] ^= byte(i + 1)
	}
	for _, m := range []struct {
		name, desc string
		value      []byte
	}{
		{"zero", "a threshold of 0", value(0, ab, kab, nil)},
		{"over-n", "a threshold of 3 with 2 approvers", value(3, ab, kab, nil)},
		{"one-approver", "one approver in the threshold form (one approver has the single form only)", value(1, []string{"alice"}, [][]byte{keys["alice"]}, nil)},
		{"unsorted", "key ids not sorted", value(1, []string{"bob", "alice"}, [][]byte{keys["bob"], keys["alice"]}, nil)},
		{"duplicate-id", "one key id twice", value(1, []string{"alice", "alice"}, [][]byte{keys["alice"], keys["bob"]}, nil)},
		{"duplicate-key", "one key under two key ids", value(1, ab, [][]byte{keys["alice"], keys["alice"]}, nil)},
		{"lengths", "two key ids, three keys", value(1, ab, [][]byte{keys["alice"], keys["bob"], keys["carol"]}, nil)},
		{"nine", "nine approvers, one over the limit of 8", value(1, nine, knine, nil)},
		{"small-order", "a key of small order (the identity point), under which anyone can sign", value(1, ab, [][]byte{keys["alice"], identity}, nil)},
		{"mixed", "the keys of both forms", value(1, ab, kab, map[uint64]any{1: "alice"})},
		{"no-threshold", "key 5 missing", func() []byte {
			b, err := enc.Marshal(map[uint64]any{3: nonce, 6: ab, 7: kab})
			g.fail(err)
			return b
		}()},
	} {
		w := g.rawWire("root-h", p+"malformed "+m.name, map[uint64][]byte{14: m.value})
		g.addMalformedHex("malformed/approval-threshold-"+m.name, "a threshold approval with "+m.desc+": malformed", w)
	}
}
