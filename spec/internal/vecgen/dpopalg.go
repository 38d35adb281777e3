package vecgen

import "strings"

// fullySpecified adds the vectors of the alg "Ed25519" (RFC 9864 §2.2),
// the fully-specified name of what RFC 8037 calls EdDSA with an Ed25519
// key (FORMAT.md §4.5 steps 4–5): accepted beside EdDSA by default, for
// an OKP Ed25519 key only, each name its own allow-list entry, and a jwk
// "alg" member naming exactly the header's alg.
func (g *gen) fullySpecified() {
	name := "dpop/alg-ed25519"
	t := g.boundTo(name, "alice")
	if t == nil {
		return
	}
	p := g.partsFor("alice", t)
	ok, no := proofReqs()
	hp := func(alg, jwk string) string {
		return g.rawProof("alice", `{"alg":"`+alg+`","jwk":`+jwk+`,"typ":"dpop+jwt"}`, p.payload(""))
	}
	bare := g.jwkWithAlg("alice", "") // alice's JWK says EdDSA
	ed := hp("Ed25519", bare)
	g.add(Vector{Name: name, Description: "bound to alice (Ed25519); proofs whose jwk has no alg member unless noted and whose alg is Ed25519 (RFC 9864): allowed, also with " +
		"a jwk alg member Ed25519; refused with a jwk alg member EdDSA, and so is alg EdDSA with a jwk alg member Ed25519; " +
		"alg ed25519 (names are case-sensitive) refused; alg EdDSA allowed",
		Requests: []Request{
			ok(ed),
			ok(hp("Ed25519", g.jwkWithAlg("alice", "Ed25519"))),
			no(hp("Ed25519", g.jwkWithAlg("alice", "EdDSA"))),
			no(hp("EdDSA", g.jwkWithAlg("alice", "Ed25519"))),
			no(hp("ed25519", bare)),
			ok(hp("EdDSA", bare)),
		}}, t, "root-h", false)

	ec := g.boundTo(name+"-ec", "carol")
	if ec == nil {
		return
	}
	pc := g.partsFor("carol", ec)
	carol := func(alg string) string {
		return g.rawProof("carol", `{"alg":"`+alg+`","jwk":`+g.jwkWithAlg("carol", "")+`,"typ":"dpop+jwt"}`, pc.payload(""))
	}
	g.add(Vector{Name: name + "-ec", Description: "bound to carol (ES256): carol's proof signed with her P-256 key but whose " +
		"alg is Ed25519 or EdDSA is refused (the jwk is not an OKP Ed25519 key); the same proof with alg ES256 is allowed",
		Requests: []Request{no(carol("Ed25519")), no(carol("EdDSA")), ok(carol("ES256"))}}, ec, "root-h", false)

	for _, c := range []struct {
		algs      []string
		ed, eddsa bool // whether alice's Ed25519 and EdDSA proofs are allowed
	}{{[]string{"Ed25519"}, true, false}, {[]string{"EdDSA"}, false, true}, {[]string{"ES256", "EdDSA"}, false, true}} {
		vname := "dpop/algorithms-" + strings.ToLower(strings.Join(c.algs, "-")) + "-alg-ed25519"
		t := g.boundTo(vname, "alice")
		if t == nil {
			return
		}
		p := g.partsFor("alice", t)
		proof := func(alg string) string {
			return g.rawProof("alice", `{"alg":"`+alg+`","jwk":`+bare+`,"typ":"dpop+jwt"}`, p.payload(""))
		}
		pick := func(allowed bool) func(string) Request {
			return map[bool]func(string) Request{true: ok, false: no}[allowed]
		}
		g.add(Vector{Name: vname, Description: "the verifier accepts only " + strings.Join(c.algs, " and ") +
			": alice's proofs with alg Ed25519, then EdDSA (the two names are separate entries)",
			Options:  &Options{DPoPAlgorithms: c.algs},
			Requests: []Request{pick(c.ed)(proof("Ed25519")), pick(c.eddsa)(proof("EdDSA"))}}, t, "root-h", false)
	}
}
