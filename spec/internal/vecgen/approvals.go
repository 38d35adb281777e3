package vecgen

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

const (
	loc          = "https://approve.example.com/pricing"
	dUntil       = "until=2026-11-30T12:10:00Z"
	t1210, t1205 = "2026-11-30T12:10:00Z", "2026-11-30T12:05:00Z"
)

// with returns r carrying the discharges ds.
func (r Request) with(ds ...string) Request { r.Discharges = ds; return r }

// using marks the used discharges of an allowed request: (block, index)
// pairs; the generator fills in the rest.
func (r Request) using(pairs ...int) Request {
	r.Approvals = nil
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Approvals = append(r.Approvals, Approval{Block: pairs[i], Discharge: pairs[i+1]})
	}
	return r
}

func (r Request) args(hexDigest string) Request { r.Args = hexDigest; return r }

func malformedAt(r Request, i int) Request {
	r.Expect, r.Refusals = "malformed", nil
	if i >= 0 {
		r.Discharge = &i
	}
	return r
}

// approvalVectors are the cases of spec/README.md "Approvals and
// discharges", in both modes where the mode matters.
func (g *gen) approvalVectors() {
	ok := rq(t12, "read_file", rules, api)
	for _, m := range []struct{ mode, key string }{{"hmac", "root-h"}, {"ed25519", "root-e"}} {
		p := "approval/" + m.mode + "/"
		mint := func(name string, blocks ...[]caveat.Caveat) *token.Ticket { return g.mint(p+name, m.key, blocks...) }
		b0 := g.caveats(block0...)
		ap := []caveat.Caveat{g.approval("pricing-lead", 1, loc)}
		tk := mint("allowed", b0, ap)
		d := g.discharge(p+"allowed d", "pricing-lead", tk, 1, dUntil)
		g.add(Vector{Name: p + "allowed", Description: "an approval caveat in block 1 and its discharge: allowed",
			Requests: []Request{ok.with(d).using(1, 0)}}, tk, m.key, true)

		t0 := mint("block0", append(g.caveats(block0...), g.approval("pricing-lead", 2, loc)))
		g.add(Vector{Name: p + "block0", Description: "an approval caveat in block 0, minted with it",
			Requests: []Request{ok.with(g.discharge(p+"block0 d", "pricing-lead", t0, 0, dUntil)).using(0, 0)}}, t0, m.key, true)

		g.addMissing(p, tk, m.key, loc, "missing")
		g.addMissing(p, mint("missing-location", b0, []caveat.Caveat{g.approval("pricing-lead", 3, "")}), m.key, "", "missing-location")

		sib := mint("sibling", b0, ap)
		g.add(Vector{Name: p + "sibling", Description: "a discharge for another ticket minted with the same caveats (another ticket id): " +
			"the approval is missing and the discharge matches nothing",
			Requests: []Request{ok.with(d).want(ref("approval", 1, "approval"), ref("approval", -1, ""))}}, sib, m.key, false)
		copied := mint("copied-caveat", b0, g.caveats("tools=read_file"), ap)
		g.add(Vector{Name: p + "copied-caveat", Description: "the same approval caveat (key, nonce, location) in another ticket, block 2",
			Requests: []Request{ok.with(d).want(ref("approval", 2, "approval"), ref("approval", -1, ""))}}, copied, m.key, false)

		if tk != nil {
			later, err := attenuateFixed(p+"attenuated-after", tk, g.caveats("paths=src/discount/"), nil)
			g.fail(err)
			g.add(Vector{Name: p + "attenuated-after", Description: "a ticket attenuated further from the approval's block keeps Bind_j: " +
				"allowed; a request its later block refuses gets that refusal only",
				Requests: []Request{ok.with(d).using(1, 0), rq(t12, "read_file", list("src/x.go"), api, ref("caveat", 2, "paths")).with(d)}}, later, m.key, false)
		}

		g.add(Vector{Name: p + "other-key", Description: "a discharge with the right binding and key id, signed by another key (pricing-lead-2)",
			Requests: []Request{ok.with(g.discharge(p+"other-key d", "pricing-lead-2", tk, 1, dUntil)).want(ref("approval", 1, "approval"))}}, tk, m.key, false)
		g.add(Vector{Name: p + "other-key-id", Description: "a discharge signed by other-lead under its own key id",
			Requests: []Request{ok.with(g.discharge(p+"other-key-id d", "other-lead", tk, 1, dUntil)).want(ref("approval", 1, "approval"))}}, tk, m.key, false)

		exp := ok.with(d).at(t1210)
		g.add(Vector{Name: p + "expired", Description: "the discharge's until is now: expired",
			Requests: []Request{exp.want(ref("approval", 1, "until"))}}, tk, m.key, false)
		g.add(Vector{Name: p + "expired-skew", Description: "the discharge's until is now, with a skew of 1 second: allowed",
			Options: &Options{SkewSeconds: 1}, Requests: []Request{exp.using(1, 0)}}, tk, m.key, false)
		g.add(Vector{Name: p + "not-yet", Description: "the discharge's nbf is in the future",
			Requests: []Request{ok.with(g.discharge(p+"not-yet d", "pricing-lead", tk, 1, dUntil, "nbf=2026-11-30T12:05:00Z")).want(ref("approval", 1, "nbf")),
				ok.with(g.discharge(p+"not-yet d", "pricing-lead", tk, 1, dUntil, "nbf=2026-11-30T12:05:00Z")).at(t1205).using(1, 0)}}, tk, m.key, false)
		g.add(Vector{Name: p + "lifetime-24h", Description: "until − now is exactly 24 hours: allowed",
			Requests: []Request{ok.with(g.discharge(p+"24h d", "pricing-lead", tk, 1, "until=2026-12-01T12:00:00Z")).using(1, 0)}}, tk, m.key, false)
		g.add(Vector{Name: p + "lifetime-over", Description: "until − now is 24 hours and 1 second: the discharge lives too long",
			Requests: []Request{ok.with(g.discharge(p+"24h1s d", "pricing-lead", tk, 1, "until=2026-12-01T12:00:01Z")).want(ref("approval", 1, "until"))}}, tk, m.key, false)

		digest := sha256.Sum256([]byte(`{"post":"exactly this summary"}`))
		other := sha256.Sum256([]byte(`{"post":"another summary"}`))
		da := g.discharge(p+"args d", "pricing-lead", tk, 1, dUntil, "args="+b64(digest[:]))
		g.add(Vector{Name: p + "args", Description: "a discharge with args: the request with that digest is allowed; another digest, or none, is refused",
			Requests: []Request{ok.with(da).args(hex.EncodeToString(digest[:])).using(1, 0),
				ok.with(da).args(hex.EncodeToString(other[:])).want(ref("approval", 1, "args")),
				ok.with(da).want(ref("approval", 1, "args"))}}, tk, m.key, false)

		// The digest of the JSON value null (an MCP "arguments": null) is
		// not the digest of {} (an absent arguments): CAVEATS.md "The args
		// digest", MCP.
		null, empty := sha256.Sum256([]byte("null")), sha256.Sum256([]byte("{}"))
		dn := g.discharge(p+"args-null d", "pricing-lead", tk, 1, dUntil, "args="+b64(null[:]))
		g.add(Vector{Name: p + "args-null", Description: "a discharge with the args digest of null: a request with that digest is allowed; the digest of {} is refused",
			Requests: []Request{ok.with(dn).args(hex.EncodeToString(null[:])).using(1, 0),
				ok.with(dn).args(hex.EncodeToString(empty[:])).want(ref("approval", 1, "args"))}}, tk, m.key, false)

		ta := mint("args-in-ticket", b0, []caveat.Caveat{must(caveat.NewArgs(digest[:]))})
		g.add(Vector{Name: p + "args-in-ticket", Description: "an args caveat in the ticket itself: checked in step 6 (caveat, kind args)",
			Requests: []Request{ok.args(hex.EncodeToString(digest[:])), ok.args(hex.EncodeToString(other[:])).want(ref("caveat", 1, "args")),
				ok.want(ref("caveat", 1, "args"))}}, ta, m.key, false)

		g.addOnce(p, mint("once", b0, append(g.caveats("calls=5"), ap...)), m.key)
		tb := mint("budgets", append(g.caveats(block0...), g.caveats("calls=5", "total=5USD")...), ap)
		g.add(Vector{Name: p + "budgets", Description: "a discharge with calls and total next to a ticket with its own: the ticket's budgets first",
			Requests: []Request{ok.cost("0.5USD").with(g.discharge(p+"budgets d", "pricing-lead", tk, 1, dUntil)).want(ref("approval", 1, "approval"), ref("approval", -1, "")),
				ok.cost("0.5USD").with(g.discharge(p+"budgets d2", "pricing-lead", tb, 1, dUntil, "calls=2", "total=1USD")).using(1, 0)}}, tb, m.key, false)

		d2 := g.discharge(p+"two d2", "pricing-lead-2", tk, 1, dUntil)
		g.add(Vector{Name: p + "two-discharges", Description: "two discharges for one approval (one with a bad signature, not reported): one refusal",
			Requests: []Request{ok.with(d, d2).want(ref("approval", 1, "approval"))}}, tk, m.key, false)
		dsib := g.discharge(p+"sibling d", "pricing-lead", sib, 1, dUntil)
		g.add(Vector{Name: p + "unmatched", Description: "the right discharge and one for another ticket: the other matches nothing",
			Requests: []Request{ok.with(dsib, d).want(ref("approval", -1, ""))}}, tk, m.key, false)
		g.add(Vector{Name: p + "no-approval", Description: "a ticket without approval caveats and a discharge: refused, never ignored",
			Requests: []Request{ok.with(d).want(ref("approval", -1, ""))}}, mint("no-approval", b0), m.key, false)

		two := mint("two-approvals", b0, ap, []caveat.Caveat{g.approval("other-lead", 4, "")})
		x1 := g.discharge(p+"two-approvals d1", "pricing-lead", two, 1, dUntil)
		x2 := g.discharge(p+"two-approvals d2", "other-lead", two, 2, dUntil)
		g.add(Vector{Name: p + "two-approvals", Description: "approvals in blocks 1 and 2: both discharges, in either order, allow; one missing refuses",
			Requests: []Request{ok.with(x1, x2).using(1, 0, 2, 1), ok.with(x2, x1).using(1, 1, 2, 0), ok.with(x2).want(ref("approval", 1, "approval"))}}, two, m.key, true)

		if did, _, err := decodeDischarge(d); err == nil {
			g.add(Vector{Name: p + "revoked", Description: "the discharge's id in the revoked set: revoked, block 1, kind approval",
				Options: &Options{Revoked: []string{did.ID}}, Requests: []Request{ok.with(d).want(ref("revoked", 1, "approval"))}}, tk, m.key, false)
		}
		if im, err := intermediate(tk.Encode(), g.keys[m.key]); err == nil {
			g.add(Vector{Name: p + "revoked-block", Description: "a revoked block of the ticket: step 4's refusal alone; step 6a is not reached",
				Options: &Options{Revoked: im.BlockIDs[1:2]}, Requests: []Request{ok.want(ref("revoked", 1, ""))}}, tk, m.key, false)
		}
		g.addDischargeCaveats(p, tk, m.key)
		g.addMalformedRequests(p, tk, d, m.key)
		if m.mode == "hmac" && d != "" {
			g.dischargeAsTicket(d)
		}
	}
}

// dischargeAsTicket adds the vectors of a discharge given as a ticket:
// its text (dis1_…), and tkt1_ followed by its bytes. Neither decodes.
func (g *gen) dischargeAsTicket(d string) {
	for _, c := range []struct{ name, text, why string }{
		{"discharge-text", d, "a discharge's text given as a ticket: the prefix is dis1_, not tkt1_"},
		{"discharge-bytes", token.Prefix + strings.TrimPrefix(d, token.DischargePrefix), "tkt1_ followed by a discharge's bytes: a discharge's envelope is no ticket's"},
	} {
		v := Vector{Name: "malformed/" + c.name, Error: "malformed", Description: c.why, Ticket: c.text}
		g.fail(g.checkRequests(&v))
		g.file.Vectors = append(g.file.Vectors, v)
	}
}

// addMissing adds a missing approval; its description has the exact
// reason (FORMAT.md §7 step 6a).
func (g *gen) addMissing(p string, t *token.Ticket, key, location, name string) {
	if t == nil {
		return
	}
	b, err := t.Binding(1)
	g.fail(err)
	why := "approval required from pricing-lead"
	if location != "" {
		why += " at " + location
	}
	why += " (code " + token.BindingCode(b) + ")"
	g.add(Vector{Name: p + name, Description: "no discharge: refusal approval, block 1, kind approval, with the reason \"" + why + "\"",
		Requests: []Request{rq(t12, "read_file", rules, api, ref("approval", 1, "approval"))}}, t, key, true)
}

// addOnce adds the one-shot sequences.
func (g *gen) addOnce(p string, t *token.Ticket, key string) {
	once := g.discharge(p+"once d", "pricing-lead", t, 1, dUntil, "calls=1")
	ok := rq(t12, "read_file", rules, api).with(once).using(1, 0)
	g.add(Vector{Name: p + "once-twice", Sequence: true,
		Description: "a discharge with calls=1, two equal requests: both allowed by the verifier; the second charge finds the discharge's budget spent",
		Requests:    []Request{ok, ok}}, t, key, false)
	g.add(Vector{Name: p + "once-refused-first", Sequence: true,
		Description: "a refused request charges nothing, so the one-shot discharge still allows the next",
		Requests:    []Request{rq(t12, "delete_file", rules, api, ref("caveat", 0, "tools")).with(once), ok}}, t, key, false)
}

// addDischargeCaveats: a discharge's own caveats against the request.
func (g *gen) addDischargeCaveats(p string, t *token.Ticket, key string) {
	ok := rq(t12, "read_file", rules, api)
	var reqs []Request
	for _, c := range []struct{ cav, kind string }{
		{"tools=write_file", "tools"}, {"paths=src/discount/other/", "paths"}, {"aud=workspace", "aud"}, {"cost=0.1USD", "cost"},
	} {
		x := g.discharge(p+"caveat "+c.kind, "pricing-lead", t, 1, dUntil, c.cav)
		reqs = append(reqs, ok.cost("0.5USD").with(x).want(ref("approval", 1, c.kind)))
	}
	// An unknown kind, which Approve does not write: signed by hand.
	if b, err := t.Binding(1); err == nil {
		seed := mustHex(g.file.Approvers["pricing-lead"].Seed)
		x := signedDischarge(map[uint64]any{2: "pricing-lead", 3: make([]byte, 16), 4: map[uint64]any{6: uint64(1796041800), 99: 0}, 7: b[:]},
			nil, ed25519.NewKeyFromSeed(seed))
		reqs = append(reqs, ok.with(x).want(ref("approval", 1, "kind(99)")))
	}
	g.add(Vector{Name: p + "discharge-caveats", Description: "a discharge's tools, paths, aud and cost refuse the request, each naming its kind, " +
		"and so does an unknown kind (kind(99))", Requests: reqs}, t, key, false)

	bound := g.mint(p+"holder", map[string]string{"hmac/": "root-h", "ed25519/": "root-e"}[strings.TrimPrefix(p, "approval/")],
		g.caveats(block0...), []caveat.Caveat{g.approval("pricing-lead", 1, loc), g.bind("alice")})
	if bound == nil {
		return
	}
	xa := g.discharge(p+"holder alice", "pricing-lead", bound, 1, dUntil, "holder="+g.file.Holders["alice"].JKT)
	xb := g.discharge(p+"holder bob", "pricing-lead", bound, 1, dUntil, "holder="+g.file.Holders["bob"].JKT)
	byAlice := ok.with(xa).withProof(g.proof("alice", bound, "jti-approval-alice")).using(1, 0)
	g.add(Vector{Name: p + "discharge-holder", Description: "a discharge's holder: the ticket's current holder with its proof is allowed; " +
		"another holder is refused (kind holder)",
		Requests: []Request{byAlice, ok.with(xb).withProof(g.proof("alice", bound, "jti-approval-alice")).want(ref("approval", 1, "holder"))}}, bound, key, false)
	xu := g.discharge(p+"holder unbound", "pricing-lead", t, 1, dUntil, "holder="+g.file.Holders["alice"].JKT)
	g.add(Vector{Name: p + "discharge-holder-unbound", Description: "a discharge's holder on an unbound ticket: refused (kind holder)",
		Requests: []Request{ok.with(xu).want(ref("approval", 1, "holder"))}}, t, key, false)

	// The order of step 6a among the others.
	two := g.mint(p+"order", map[string]string{"hmac/": "root-h", "ed25519/": "root-e"}[strings.TrimPrefix(p, "approval/")],
		g.caveats(block0...), []caveat.Caveat{g.approval("pricing-lead", 1, loc), g.bind("alice")}, []caveat.Caveat{g.approval("other-lead", 2, "")})
	if two == nil {
		return
	}
	expired := g.discharge(p+"order expired", "other-lead", two, 2, "until=2026-11-30T11:00:00Z")
	stray := g.discharge(p+"order stray", "pricing-lead", t, 1, dUntil)
	g.add(Vector{Name: p + "order", Description: "a ticket caveat (step 6), a missing approval, an expired discharge, an unmatched discharge " +
		"and a missing DPoP proof (step 7): the refusals in that order",
		Requests: []Request{rq(t12, "delete_file", rules, api, ref("caveat", 0, "tools"), ref("approval", 1, "approval"), ref("approval", 2, "until"),
			ref("approval", -1, ""), ref("dpop", 1, "holder")).with(expired, stray)}}, two, key, false)
}

// addMalformedRequests: requests whose discharges do not decode.
func (g *gen) addMalformedRequests(p string, t *token.Ticket, d, key string) {
	if t == nil || d == "" {
		return
	}
	b, _ := t.Binding(1)
	block := func(cavs map[uint64]any) map[uint64]any {
		return map[uint64]any{2: "pricing-lead", 3: make([]byte, 16), 4: cavs, 7: b[:]}
	}
	until := uint64(1796041800)
	noUntil := handDischarge(block(map[uint64]any{5: 1}), nil)
	pub := mustHex(g.file.Approvers["other-lead"].Public)
	withApproval := handDischarge(block(map[uint64]any{6: until, 14: map[uint64]any{1: "other-lead", 2: pub, 3: make([]byte, 16)}}), nil)
	withMode := handDischarge(map[uint64]any{1: 1, 2: "pricing-lead", 3: make([]byte, 16), 4: map[uint64]any{6: until}, 7: b[:]}, nil)
	many := map[uint64]any{6: until}
	for k := uint64(16); len(many) < 17; k++ {
		many[k] = 0
	}
	tooMany := handDischarge(block(many), nil)
	// Trailing bits: the last character of a valid text changed so that
	// the bits after the last byte are not zero.
	bad := []byte(d)
	bad[len(bad)-1] ^= 1
	nine := []string{d, d, d, d, d, d, d, d, d}
	huge := overLimit(block, until)
	ok := rq(t12, "read_file", rules, api)
	g.add(Vector{Name: p + "malformed-discharges", Description: "discharges that do not decode (FORMAT.md §7 step 1): without until, with an approval caveat, " +
		"with a mode field, with 17 caveats, with trailing bits, nine of them, one over 4096 bytes, a ticket's text, and dis1_ with a ticket's bytes; the index names the first bad one",
		Requests: []Request{
			malformedAt(ok.with(noUntil), 0), malformedAt(ok.with(d, withApproval), 1), malformedAt(ok.with(withMode), 0),
			malformedAt(ok.with(tooMany), 0), malformedAt(ok.with(string(bad)), 0), malformedAt(ok.with(nine...), -1),
			malformedAt(ok.with(d, huge), 1),
			malformedAt(ok.with(t.String()), 0), malformedAt(ok.with(token.DischargePrefix+strings.TrimPrefix(t.String(), token.Prefix)), 0),
		}}, t, key, false)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// overLimit is a discharge of exactly 4097 bytes (FORMAT.md §6: one over
// the limit), grown by a tools list and an intent.
func overLimit(block func(map[uint64]any) map[uint64]any, until uint64) string {
	var tools []string
	for i := range 180 {
		tools = append(tools, fmt.Sprintf("tool-%03d-%s", i, strings.Repeat("x", 10)))
	}
	for n := 1; n <= 1024; n++ {
		text := handDischarge(block(map[uint64]any{1: tools, 6: until, 12: strings.Repeat("i", n)}), nil)
		if raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(text, token.DischargePrefix)); len(raw) == 4097 {
			return text
		}
	}
	panic("vecgen: no discharge of 4097 bytes")
}
