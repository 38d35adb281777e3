package vecgen

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/token"
)

// rawProof signs the exact header and payload JSON with holder's key as a
// JWS in compact serialisation (RFC 7515 §7.1).
func (g *gen) rawProof(holder, hdr, payload string) string {
	input := b64([]byte(hdr)) + "." + b64([]byte(payload))
	return input + "." + b64(g.holderSign(holder, []byte(input), false))
}

// signInput signs an already encoded signing input.
func (g *gen) signInput(holder, input string) string {
	return input + "." + b64(g.holderSign(holder, []byte(input), false))
}

// proofParts are the JSON texts of a proof for ticket t, to be varied.
type proofParts struct {
	alg, jwk, ath string
}

func (g *gen) partsFor(holder string, t *token.Ticket) proofParts {
	ath := sha256.Sum256([]byte(t.String()))
	alg := "EdDSA"
	if holder == "carol" {
		alg = "ES256"
	}
	return proofParts{alg: alg, jwk: g.file.Holders[holder].PublicJWK, ath: b64(ath[:])}
}

func (p proofParts) header(extra string) string {
	return `{"alg":"` + p.alg + `",` + extra + `"jwk":` + p.jwk + `,"typ":"dpop+jwt"}`
}

// payload is the claims with jti "j", htm POST, htu mcpURI and iat t12,
// extra members first.
func (p proofParts) payload(extra string) string {
	return `{` + extra + `"ath":"` + p.ath + `","htm":"POST","htu":"` + mcpURI + `","iat":1796040000,"jti":"j"}`
}

// jwsStructure adds vectors of FORMAT.md §4.5 steps 1–7 and 11–12: the
// JWS, its header, its payload, the nonce and ath, each a dpop refusal of
// block 0 unless noted.
func (g *gen) jwsStructure() {
	name := "dpop/jws"
	t := g.boundTo(name, "alice")
	if t == nil {
		return
	}
	p := g.partsFor("alice", t)
	ok, no := proofReqs()
	hp := func(hdr string) string { return g.rawProof("alice", hdr, p.payload("")) }
	good := hp(p.header(""))
	reqs := []Request{
		ok(good),
		// Header (steps 2–5).
		no(hp(`{"alg":"EdDSA","jwk":` + p.jwk + `}`)),
		no(hp(p.header(`"typ":"JWT",`))),
		no(hp(strings.Replace(p.header(""), "dpop+jwt", "DPoP+jwt", 1))),
		no(hp(p.header(`"crit":["exp"],`))),
		no(hp(p.header(`"b64":true,`))),
		no(hp(p.header(`"typ":"dpop+jwt",`))), // typ twice
		ok(hp(p.header(`"kid":"alice-1",`))),  // other members are allowed
		no(b64([]byte(strings.Replace(p.header(""), "EdDSA", "none", 1))) + "." + b64([]byte(p.payload(""))) + "."),
		no(hp(strings.Replace(p.header(""), "EdDSA", "HS256", 1))),
		no(hp(strings.Replace(p.header(""), "EdDSA", "ES256", 1))),
		no(hp(`{"alg":"EdDSA","typ":"dpop+jwt"}`)),
		no(hp(`{"alg":"EdDSA","jwk":` + g.file.Holders["alice"].PrivateJWK + `,"typ":"dpop+jwt"}`)),
		no(hp(`{"alg":"EdDSA","jwk":` + g.jwkWithAlg("alice", "ES256") + `,"typ":"dpop+jwt"}`)),
		ok(hp(strings.Replace(p.header(""), "dpop+jwt", `dpop\u002bjwt`, 1))),
		ok(hp(p.header(`"Typ":"x",`))),
		no(hp(p.header(`"t\u0079p":"dpop+jwt",`))),
		no(hp(p.header(`"x":{"a":1,"a":2},`))),
		no(hp(`{"alg":"EdDSA","jwk":` + strings.Replace(p.jwk, `{`, `{"ext":{"a":1,"a":2},`, 1) + `,"typ":"dpop+jwt"}`)),
		ok(hp(`{"alg":"EdDSA","jwk":` + strings.Replace(p.jwk, `{`, `{"ext":{"a":1},`, 1) + `,"typ":"dpop+jwt"}`)),
		no(hp(p.header(`"kid":"\ud800",`))),
		no(hp(p.header("\"kid\":\"\xff\","))),
		ok(hp(p.header(`"x":` + nested(32) + `,`))),
		no(hp(p.header(`"x":` + nested(33) + `,`))),
		// Serialisation (steps 1–2).
		no(good + ".x"),
		no(strings.Join(strings.Split(good, ".")[:2], ".")),
		no(g.padded(p)),
		no(g.trailingBits(p)),
		no(`{"payload":"` + strings.Split(good, ".")[1] + `"}`),
	}
	reqs = append(reqs, g.payloadCases(p, name)...)
	// Size (step 1).
	reqs = append(reqs, ok(g.sizedProof(p, 8192)), no(g.sizedProof(p, 8193)))
	// Nonce (step 11): demanded "n-1".
	nonce := func(proof, n string, refs ...Refusal) Request {
		return req().withProof(&DPoP{Proof: proof, Method: "POST", URI: mcpURI, Nonce: n}).want(refs...)
	}
	withNonce := func(v string) string { return g.rawProof("alice", p.header(""), p.payload(`"nonce":`+v+`,`)) }
	reqs = append(reqs,
		nonce(good, "n-1", refDPoP(0)),
		nonce(withNonce(`"n-1"`), "n-1"),
		nonce(withNonce(`"n-2"`), "n-1", refDPoP(0)),
		nonce(withNonce(`"n-1"`), ""),
		nonce(withNonce(`1`), "", refDPoP(0)),
	)
	g.add(Vector{Name: name, Description: "bound to alice; hand-made proofs, each one rule apart from a good one (FORMAT.md §4.5): " +
		"typ missing, JWT or other case; crit; b64; a duplicate header member; an extra header member (allowed); typ written with an " +
		"escape (allowed); a member Typ (allowed); duplicates after unescaping or nested in the header; a lone surrogate or invalid " +
		"UTF-8 in the header; header and payload values nested 32 deep (allowed) and 33; alg none, HS256, " +
		"or ES256 with an Ed25519 key; no jwk; a private jwk; a jwk alg mismatch; four or two parts; padding; non-zero trailing bits; " +
		"JSON serialisation; duplicate claims (also after unescaping); a lone surrogate escape; an unknown nested claim (allowed), " +
		"with a duplicate inside it, the same name in two objects (allowed), a lone surrogate or invalid UTF-8 inside it; a jti of 256 bytes after unescaping (allowed) and 258; " +
		"iat as fraction, exponent or string; jti missing, empty, 256 bytes (allowed), 257 bytes; htm missing; a payload that is " +
		"not an object; ath missing or another ticket's; 8192 bytes (allowed) and 8193; then nonces: none, equal, other, " +
		"not demanded (allowed), not a string",
		Requests: reqs}, t, "root-h", false)
	g.algorithms()
	g.customWindow()
	g.windowLimits()
}

// padded is the good proof with its header's base64url padded with "=".
func (g *gen) padded(p proofParts) string {
	hdr := p.header("")
	if len(hdr)%3 == 0 {
		hdr = p.header(`"kid":"k",`)
	}
	return g.signInput("alice", base64.URLEncoding.EncodeToString([]byte(hdr))+"."+b64([]byte(p.payload(""))))
}

// trailingBits is the good proof with non-zero unused bits in the last
// character of its header's base64url (decoders that ignore them read the
// same header).
func (g *gen) trailingBits(p proofParts) string {
	hdr := p.header("")
	if len(hdr)%3 == 0 {
		hdr = p.header(`"kid":"k",`)
	}
	return g.signInput("alice", setTrailingBit(b64([]byte(hdr)))+"."+b64([]byte(p.payload(""))))
}

// sizedProof is a good proof of exactly n bytes, padded by an unknown
// claim (and a header member when the lengths need it).
func (g *gen) sizedProof(p proofParts, n int) string {
	for kid := 0; kid < 3; kid++ {
		hdr := p.header(`"kid":"` + strings.Repeat("k", kid) + `",`)
		for pad := 0; pad < n; pad++ {
			payload := p.payload(`"pad":"` + strings.Repeat("p", pad) + `",`)
			size := len(b64([]byte(hdr))) + 1 + len(b64([]byte(payload))) + 1 + 86
			if size == n {
				return g.rawProof("alice", hdr, payload)
			}
			if size > n {
				break
			}
		}
	}
	g.fail(fmt.Errorf("vecgen: no proof of %d bytes", n))
	return ""
}

// algorithms: the verifier's alg allow-list (FORMAT.md §4.5 step 4).
func (g *gen) algorithms() {
	for _, c := range []struct {
		name  string
		algs  []string
		alice []Refusal
		carol []Refusal
	}{
		{"dpop/algorithms-es256", []string{"ES256"}, []Refusal{refDPoP(0)}, nil},
		{"dpop/algorithms-eddsa", []string{"EdDSA"}, nil, []Refusal{refDPoP(0)}},
	} {
		for _, h := range []struct {
			holder string
			want   []Refusal
		}{{"alice", c.alice}, {"carol", c.carol}} {
			t := g.boundTo(c.name+"/"+h.holder, h.holder)
			if t == nil {
				return
			}
			p := g.partsFor(h.holder, t)
			proof := g.rawProof(h.holder, p.header(""), p.payload(""))
			g.add(Vector{Name: c.name + "-" + h.holder, Description: "the verifier accepts only " + c.algs[0] +
				" proofs; a proof by " + h.holder + " (" + p.alg + ")",
				Options:  &Options{DPoPAlgorithms: c.algs},
				Requests: []Request{req().withProof(&DPoP{Proof: proof, Method: "POST", URI: mcpURI}).want(h.want...)}}, t, "root-h", false)
		}
	}
}

// windowTicket returns the ticket of vector name, bound to alice, and a
// request carrying alice's proof for POST mcpURI issued at Now (nil when
// the ticket could not be made).
func (g *gen) windowTicket(name string) (*token.Ticket, Request) {
	t := g.boundTo(name, "alice")
	if t == nil {
		return nil, Request{}
	}
	p := g.partsFor("alice", t)
	return t, req().withProof(&DPoP{Proof: g.rawProof("alice", p.header(""), p.payload("")), Method: "POST", URI: mcpURI})
}

// at is Now moved by d, at full precision.
func at(d time.Duration) string { return Now.Add(d).Format(time.RFC3339Nano) }

// windowEdges are r at both edges of a window of back and ahead around
// the proof's iat (accepted) and a millisecond past each (refused).
func windowEdges(r Request, back, ahead time.Duration) []Request {
	return []Request{
		r.at(at(back)).want(),
		r.at(at(back + time.Millisecond)).want(refDPoP(0)),
		r.at(at(-ahead)).want(),
		r.at(at(-ahead - time.Millisecond)).want(refDPoP(0)),
	}
}

// customWindow: a verifier's own window of 60 s back and 5 s ahead, edges
// included, at full precision; the skew does not widen it.
func (g *gen) customWindow() {
	name := "dpop/window-custom"
	t, r := g.windowTicket(name)
	if t == nil {
		return
	}
	g.add(Vector{Name: name, Description: "dpop_max_age_seconds 60 and dpop_future_skew_seconds 5 (skew 30): the proof's iat " +
		"2026-11-30T12:00:00Z is accepted from 60 s after to 5 s before it, edges included",
		Options:  &Options{DPoPMaxAgeSeconds: 60, DPoPFutureSkewSeconds: 5, SkewSeconds: 30},
		Requests: windowEdges(r, 60*time.Second, 5*time.Second)}, t, "root-h", false)
}

// windowLimits: the largest window a verifier may set (900 s back, 300 s
// ahead), edges included; one second more of either is a misconfigured
// verifier, which refuses every proof.
func (g *gen) windowLimits() {
	name := "dpop/window-largest"
	t, r := g.windowTicket(name)
	if t == nil {
		return
	}
	g.add(Vector{Name: name, Description: "dpop_max_age_seconds 900 and dpop_future_skew_seconds 300, the largest allowed: " +
		"the proof's iat 2026-11-30T12:00:00Z is accepted from 900 s after to 300 s before it, edges included",
		Options:  &Options{DPoPMaxAgeSeconds: 900, DPoPFutureSkewSeconds: 300},
		Requests: windowEdges(r, 900*time.Second, 300*time.Second)}, t, "root-h", false)
	for _, c := range []struct {
		name, what string
		o          Options
	}{
		{"dpop/window-age-too-large", "dpop_max_age_seconds 901", Options{DPoPMaxAgeSeconds: 901}},
		{"dpop/window-skew-too-large", "dpop_future_skew_seconds 301", Options{DPoPFutureSkewSeconds: 301}},
	} {
		t, r := g.windowTicket(c.name)
		if t == nil {
			return
		}
		g.add(Vector{Name: c.name, Description: c.what + " is over the largest window: the verifier is misconfigured " +
			"and refuses every proof, even one made now",
			Options:  &c.o,
			Requests: []Request{r.at(at(0)).want(refDPoP(0))}}, t, "root-h", false)
	}
}

// jwkWithAlg is holder's public JWK with its alg member set to alg (and
// no other alg member), or without one when alg is empty.
func (g *gen) jwkWithAlg(holder, alg string) string {
	var m map[string]any
	g.fail(json.Unmarshal([]byte(g.file.Holders[holder].PublicJWK), &m))
	m["alg"] = alg
	if alg == "" {
		delete(m, "alg")
	}
	out, err := json.Marshal(m)
	g.fail(err)
	return string(out)
}

// nested is n arrays, each inside the one before: "[[…]]".
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// proofReqs returns makers of a request at t12 with a proof for POST
// mcpURI that must be allowed (ok) or refused as dpop in block 0 (no).
func proofReqs() (ok, no func(proof string) Request) {
	ok = func(proof string) Request {
		return req().withProof(&DPoP{Proof: proof, Method: "POST", URI: mcpURI}).want()
	}
	no = func(proof string) Request {
		return req().withProof(&DPoP{Proof: proof, Method: "POST", URI: mcpURI}).want(refDPoP(0))
	}
	return ok, no
}

// payloadCases are the proofs of dpop/jws that differ from a good one in
// the payload (FORMAT.md §4.5 steps 7 and 12).
func (g *gen) payloadCases(p proofParts, name string) []Request {
	ok, no := proofReqs()
	pp := func(payload string) string { return g.rawProof("alice", p.header(""), payload) }
	other := g.boundTo(name+"/other", "alice")
	otherATH := sha256.Sum256([]byte(other.String()))
	return []Request{
		// Payload (step 7).
		no(pp(p.payload(`"jti":"k",`))),
		no(pp(p.payload(`"j\u0074i":"k",`))),
		no(pp(p.payload(`"\ud800":1,`))),
		ok(pp(p.payload(`"x":[[{"y":null}],true,-1.5e3],`))),
		no(pp(p.payload(`"x":{"a":1,"a":2},`))),
		ok(pp(p.payload(`"x":{"a":1},"y":{"a":2},`))),
		no(pp(p.payload(`"x":"\ud800",`))),
		no(pp(p.payload("\"x\":\"\xff\","))),
		ok(pp(p.payload(`"x":` + nested(32) + `,`))),
		no(pp(p.payload(`"x":` + nested(33) + `,`))),
		ok(pp(strings.Replace(p.payload(""), `"jti":"j"`, `"jti":"`+strings.Repeat(`\u006a`, 256)+`"`, 1))),
		no(pp(strings.Replace(p.payload(""), `"jti":"j"`, `"jti":"`+strings.Repeat(`\u00e9`, 129)+`"`, 1))),
		no(pp(strings.Replace(p.payload(""), `1796040000`, `1796040000.0`, 1))),
		no(pp(strings.Replace(p.payload(""), `1796040000`, `1.79604e9`, 1))),
		no(pp(strings.Replace(p.payload(""), `1796040000`, `"1796040000"`, 1))),
		no(pp(strings.Replace(p.payload(""), `,"jti":"j"`, ``, 1))),
		no(pp(strings.Replace(p.payload(""), `"jti":"j"`, `"jti":""`, 1))),
		ok(pp(strings.Replace(p.payload(""), `"jti":"j"`, `"jti":"`+strings.Repeat("j", 256)+`"`, 1))),
		no(pp(strings.Replace(p.payload(""), `"jti":"j"`, `"jti":"`+strings.Repeat("j", 257)+`"`, 1))),
		no(pp(strings.Replace(p.payload(""), `"htm":"POST",`, ``, 1))),
		no(pp(`[` + p.payload("") + `]`)),
		// ath (step 12).
		no(pp(strings.Replace(p.payload(""), `"ath":"`+p.ath+`",`, ``, 1))),
		no(pp(strings.Replace(p.payload(""), p.ath, b64(otherATH[:]), 1))),
	}
}
