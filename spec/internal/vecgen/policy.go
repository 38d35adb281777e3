package vecgen

import (
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

func refPolicy() Refusal { return ref("policy", -1, "") }

// policy adds the verifier's own refusals (FORMAT.md §7 step 5), the key
// and mode refusals (§4.3), the skew (§7, CAVEATS.md) and the time bounds
// (§5).
func (g *gen) policy() {
	g.addChain("policy/require-holder", "the verifier requires holder binding; a bearer ticket is refused once, block -1, no kind",
		&Options{RequireHolder: true}, blocks(list("tools=read_file")),
		req().want(refPolicy()))
	g.addChain("policy/require-expiry", "the verifier requires expiry; the ticket has no until",
		&Options{RequireExpiry: true}, blocks(list("tools=read_file")),
		req().want(refPolicy()))
	g.addChain("policy/require-expiry-met", "the verifier requires expiry; an until in any block meets it",
		&Options{RequireExpiry: true}, blocks(list("tools=read_file"), list("until=2026-11-30T13:00:00Z")),
		req().want())
	g.addChain("policy/max-lifetime-without-until", "a maximum lifetime refuses a ticket without until exactly as expiry required does: once",
		&Options{MaxLifetimeSeconds: 3600}, blocks(list("tools=read_file")),
		req().want(refPolicy()))
	g.addChain("policy/expiry-and-max-lifetime-without-until", "expiry required and a maximum lifetime, no until: still one refusal",
		&Options{RequireExpiry: true, MaxLifetimeSeconds: 3600}, blocks(list("tools=read_file")),
		req().want(refPolicy()))
	g.addChain("policy/max-lifetime", "until - now against a maximum lifetime of 3600 s: the effective until (the earliest, block 1's), now at full precision, equal is allowed",
		&Options{MaxLifetimeSeconds: 3600}, blocks(list("until=2026-11-30T14:00:00Z"), list("until=2026-11-30T13:00:00Z")),
		req().want(),
		req().at(t12half).want(),
		req().at(t115959x).want(refPolicy()),
		req().at(t115959).want(refPolicy()))
	g.addChain("policy/max-lifetime-no-skew", "the skew does not widen the maximum lifetime",
		&Options{MaxLifetimeSeconds: 3600, SkewSeconds: 60}, blocks(list("until=2026-11-30T13:00:00Z")),
		req().want(),
		req().at(t115959).want(refPolicy()))
	g.addChain("policy/all-that-apply", "holder required and a lifetime exceeded: both refusals, holder first",
		&Options{RequireHolder: true, MaxLifetimeSeconds: 60}, blocks(list("until=2026-11-30T13:00:00Z")),
		req().want(refPolicy(), refPolicy()))
	g.addChain("policy/holder-and-no-until", "holder and expiry required, neither present: two refusals",
		&Options{RequireHolder: true, RequireExpiry: true}, blocks(list("tools=read_file")),
		req().want(refPolicy(), refPolicy()))
	g.addChain("policy/ends-decision", "a policy refusal ends the decision: caveats that would refuse are not looked at",
		&Options{RequireHolder: true}, blocks(list("tools=read_file")),
		req().tool("write_file").want(refPolicy()))
	g.addChain("policy/after-attenuation", "an attenuation refusal ends the decision before policy",
		&Options{RequireHolder: true}, blocks(list("tools=read_file"), list("tools=read_file,write_file")),
		req().want(refWiden(1, "tools")))
	if t := g.handChain("policy/after-revocation", list("tools=read_file"), list()); t != nil {
		im, err := intermediate(t.Encode(), g.keys["root-h"])
		g.fail(err)
		if err == nil {
			g.add(Vector{Name: "policy/after-revocation", Description: "a revoked block ends the decision before policy; every revoked block is listed",
				Options:  &Options{RequireHolder: true, Revoked: im.BlockIDs},
				Requests: []Request{req().tool("write_file").want(ref("revoked", 0, ""), ref("revoked", 1, ""))}}, t, "root-h", false)
		}
	}
	g.bound()
	g.keysAndModes()
	g.skew()
	g.bounds()
}

// bound: a holder-bound ticket meets require_holder.
func (g *gen) bound() {
	t := g.mint("policy/require-holder-met", "root-h", append(g.caveats("tools=read_file"), g.bind("alice")))
	if t == nil {
		return
	}
	g.add(Vector{Name: "policy/require-holder-met", Description: "holder binding required and present; alice proves possession",
		Options:  &Options{RequireHolder: true},
		Requests: []Request{req().withProof(g.proof("alice", t, "jti-policy-1")).want()}}, t, "root-h", false)
}

func (g *gen) keysAndModes() {
	base := g.handChain("key/base", list("tools=read_file"))
	if base == nil {
		return
	}
	add := func(name, desc string, keyring []string, opts *Options, t *token.Ticket, r Request) {
		g.add(Vector{Name: name, Description: desc, Keyring: keyring, Options: opts, Requests: []Request{r}}, t, "root-h", false)
	}
	add("key/unknown-id", "no key in the keyring has block 0's key id", []string{"root-e"}, nil, base, req().want(ref("key", -1, "")))
	add("key/empty-keyring", "an empty keyring", []string{}, nil, base, req().want(ref("key", -1, "")))
	add("key/mode-not-accepted", "the verifier accepts only ed25519 keys; the key is hmac: a key refusal, not policy",
		nil, &Options{Modes: []string{"ed25519"}}, base, req().want(ref("key", -1, "")))
	add("key/mode-accepted", "the verifier accepts only hmac keys", nil, &Options{Modes: []string{"hmac"}}, base, req().want())
	add("key/not-accepted-before-policy", "accepted modes are checked with the key, before the chain and policy",
		nil, &Options{Modes: []string{"ed25519"}, RequireHolder: true}, base, req().want(ref("key", -1, "")))
	// §3 step 1: block 0's key id may hold '+', which no key name may
	// (chain/FORMAT.md §4), so the ticket decodes and no keyring holds its
	// key, even one whose key has the same secret.
	if plus := g.decodeWire(g.rawWireAs("root-h", "root+h", "key/plus-in-key-id",
		map[uint64][]byte{1: mustHex("8169726561645f66696c65")})); plus != nil {
		add("key/plus-in-key-id", "block 0's key id root+h holds '+': it decodes, but no keyring holds such an id (root-h's secret signed it)",
			nil, nil, plus, req().want(ref("key", -1, "")))
	}

	// An HMAC ticket keyed with the Ed25519 root's public key, naming it
	// (as hmac/mode-confusion): what decides "accepted" is the key's mode.
	confused, err := key.NewHMAC("root-e", fixedkey.Public(g.keys["root-e"].Verifying()))
	g.fail(err)
	if err != nil {
		return
	}
	ct, err := mintFixed("confused", confused, g.caveats("tools=read_file"), nil)
	g.fail(err)
	add("key/accepted-mode-is-the-keys", "an hmac ticket naming the ed25519 key, only hmac accepted: refused as key, for the key's mode is ed25519",
		[]string{"root-e"}, &Options{Modes: []string{"hmac"}}, ct, req().want(ref("key", -1, "")))
	add("mode/hmac-ticket-ed25519-key", "only ed25519 accepted, the key is ed25519, the ticket says hmac: mode, block 0",
		[]string{"root-e"}, &Options{Modes: []string{"ed25519"}}, ct, req().want(ref("mode", 0, "")))

	ek, err := rootKey("spec ed25519 impostor", "root-h", key.Ed25519)
	g.fail(err)
	if err != nil {
		return
	}
	et, err := mintFixed("impostor", ek, g.caveats("tools=read_file"), nil)
	g.fail(err)
	add("mode/ed25519-ticket-hmac-key", "an ed25519 ticket naming the hmac key root-h: mode, block 0",
		nil, nil, et, req().want(ref("mode", 0, "")))
}

func (g *gen) skew() {
	g.addChain("skew/until-nbf", "a skew of 10 s widens until and nbf by 10 whole seconds, edges as without skew",
		&Options{SkewSeconds: 10}, blocks(list("nbf=2026-11-30T12:00:00Z", "until=2026-11-30T12:30:00Z")),
		req().at("2026-11-30T11:59:50Z").want(),
		req().at("2026-11-30T11:59:49.999Z").want(refCaveat(0, "nbf")),
		req().at("2026-11-30T12:30:09.999Z").want(),
		req().at("2026-11-30T12:30:10Z").want(refCaveat(0, "until")))
	g.addChain("skew/negative", "a negative skew counts as 0",
		&Options{SkewSeconds: -10}, blocks(list("nbf=2026-11-30T12:00:00Z", "until=2026-11-30T12:30:00Z")),
		req().want(),
		req().at(t122959).want(),
		req().at(t115959).want(refCaveat(0, "nbf")),
		req().at(t1230).want(refCaveat(0, "until")))
}

// bounds: the last instant RFC 3339 writes is the largest until and nbf;
// the amounts reach 2^64-1 micros.
func (g *gen) bounds() {
	g.addChain("bounds/until-max", "until=9999-12-31T23:59:59Z decodes; it is excluded at that instant",
		nil, blocks(list("until="+maxInstant)),
		req().want(),
		req().at("9999-12-31T23:59:58Z").want(),
		req().at(maxInstant).want(refCaveat(0, "until")))
	g.addChain("bounds/nbf-max", "nbf=9999-12-31T23:59:59Z decodes; it is included at that instant",
		nil, blocks(list("nbf="+maxInstant)),
		req().want(refCaveat(0, "nbf")),
		req().at(maxInstant).want())
	g.addChain("bounds/amount-max", "cost and total of 2^64-1 micros decode and compare",
		nil, blocks(list("cost=18446744073709.551615USD", "total=18446744073709.551615USD")),
		req().cost("18446744073709.551615USD").want(),
		req().cost("18446744073709.551614USD").want())
	for _, c := range []struct {
		name string
		kind uint64
	}{{"until", 6}, {"nbf", 7}} {
		// 253402300800 = 0x3afff44180, one second after 9999-12-31T23:59:59Z.
		data := g.rawTicket("root-h", "bounds", map[uint64][]byte{1: mustHex("8169726561645f66696c65"), c.kind: mustHex("1b0000003afff44180")})
		v := Vector{Name: "malformed/" + c.name + "-after-9999", Error: "malformed", TicketHex: data,
			Description: c.name + " = 253402300800, one second after 9999-12-31T23:59:59Z, correctly tagged: out of range"}
		g.fail(g.checkRequests(&v))
		g.file.Vectors = append(g.file.Vectors, v)
	}
}
