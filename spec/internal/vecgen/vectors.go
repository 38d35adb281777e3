package vecgen

import (
	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

const t12, t1230, t122959 = "2026-11-30T12:00:00Z", "2026-11-30T12:30:00Z", "2026-11-30T12:29:59Z"

func rq(now, tool string, paths, urls []string, refusals ...Refusal) Request {
	r := Request{Now: now, Tool: tool, Op: "invoke", Paths: paths, URLs: urls, Expect: "allowed", Refusals: refusals}
	if len(refusals) > 0 {
		r.Expect = "refused"
	}
	return r
}

func ref(check string, block int, kind string) Refusal { return Refusal{check, block, kind} }

func list(s ...string) []string { return s }

var (
	api     = list("https://api.example.org/v1")
	rules   = list("src/discount/rules.go")
	block0  = []string{"tools=read_file,write_file", "ops=delegate,invoke", "paths=src/", "hosts=*.example.org", "until=2026-11-30T13:00:00Z", "intent=upgrade pricing deps"}
	block1  = []string{"tools=read_file", "paths=src/discount/"}
	block2  = []string{"until=2026-11-30T12:30:00Z"}
	allowed = rq(t12, "read_file", rules, api)
)

// scenarioRequests are asked of every three-block scenario ticket.
var scenarioRequests = []Request{
	allowed,
	rq(t12, "read_file", list("src/discount-other/x.go"), api, ref("caveat", 1, "paths")),
	rq(t12, "read_file", list("src/discount/../refund/x.go"), api, ref("caveat", 0, "paths"), ref("caveat", 1, "paths")),
	rq(t12, "write_file", list("src/discount/a.go"), api, ref("caveat", 1, "tools")),
	rq(t1230, "read_file", rules, api, ref("caveat", 2, "until")),
	rq(t122959, "read_file", rules, api),
	rq(t12, "read_file", rules, list("https://api.example.org@evil.example.com/"), ref("caveat", 0, "hosts")),
	rq(t12, "read_file", nil, api, ref("caveat", 0, "paths"), ref("caveat", 1, "paths")),
	rq(t12, "", rules, api, ref("caveat", 0, "tools"), ref("caveat", 1, "tools")),
}

func (g *gen) valid() {
	for _, m := range []struct{ mode, key string }{{"hmac", "root-h"}, {"ed25519", "root-e"}} {
		name := m.mode + "/three-blocks"
		t := g.mint(name, m.key, g.caveats(block0...), g.caveats(block1...), g.caveats(block2...))
		g.add(Vector{Name: name, Description: "a ticket attenuated twice; requests inside and outside its scope",
			Requests: scenarioRequests}, t, m.key, true)

		name = m.mode + "/sealed"
		t = g.mint(name, m.key, g.caveats(block0...), g.caveats(block1...))
		if t != nil {
			var err error
			t, err = t.Seal()
			g.fail(err)
		}
		g.add(Vector{Name: name, Description: "a sealed ticket: verifies, and nothing can be appended",
			Requests: []Request{allowed}}, t, m.key, true)
	}

	name := "ed25519/bound"
	t := g.mint(name, "root-e", g.caveats(block0...), append(g.caveats(block1...), g.bind("alice")))
	if t != nil {
		p := rq(t12, "read_file", rules, api)
		p.DPoP = g.proof("alice", t, "jti-alice-1")
		byMallory := rq(t12, "read_file", rules, api, ref("dpop", 1, "holder"))
		byMallory.DPoP = g.proof("mallory", t, "jti-mallory-1")
		g.add(Vector{Name: name, Description: "bound to alice in block 1: only alice's DPoP proof (RFC 9449) for this ticket's text allows",
			Requests: []Request{p, rq(t12, "read_file", rules, api, ref("dpop", 1, "holder")), byMallory}}, t, "root-e", true)
	}

	name = "hmac/rebound"
	t = g.mint(name, "root-h", g.caveats(block0...), append(g.caveats(block1...), g.bind("alice")))
	if t != nil {
		signer := g.signer("alice")
		var err error
		t, err = t.Attenuate([]caveat.Caveat{g.bind("bob")}, &token.Options{Holder: signer})
		g.fail(err)
	}
	if t != nil {
		byBob := rq(t12, "read_file", rules, api)
		byBob.DPoP = g.proof("bob", t, "jti-bob-1")
		byAlice := rq(t12, "read_file", rules, api, ref("dpop", 2, "holder"))
		byAlice.DPoP = g.proof("alice", t, "jti-alice-2")
		g.add(Vector{Name: name, Description: "bound to alice, then rebound to bob by a block alice signed (spec §4.4): the last holder proves possession",
			Requests: []Request{byBob, byAlice}}, t, "root-h", true)
	}

	name = "hmac/revoked"
	t = g.mint(name, "root-h", g.caveats(block0...), g.caveats(block1...), g.caveats(block2...))
	if t != nil {
		im, err := intermediate(t.Encode(), g.keys["root-h"])
		g.fail(err)
		if err == nil {
			g.add(Vector{Name: name, Description: "block 1's id is in the verifier's revoked set",
				Options:  &Options{Revoked: []string{im.BlockIDs[1]}},
				Requests: []Request{rq(t12, "read_file", rules, api, ref("revoked", 1, ""))}}, t, "root-h", true)
		}
	}
}
