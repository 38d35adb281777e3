package vecgen

import (
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

const mcpURI = "mcp://workspace/read_file"

func refDPoP(block int) Refusal { return ref("dpop", block, "holder") }

// boundTo mints an HMAC ticket bound to holder in block 0.
func (g *gen) boundTo(name, holder string) *token.Ticket {
	return g.mint(name, "root-h", append(g.caveats("tools=read_file", "until=2026-11-30T13:00:00Z"), g.bind(holder)))
}

// proofs adds DPoP vectors (FORMAT.md §4.5): both algorithms, the
// window's edges, and htu normalisation.
func (g *gen) proofs() {
	g.window("alice")
	g.window("carol")
	g.htu()
	g.rebindES256()
	g.jwsStructure()
	g.fullySpecified()
}

// window: a proof issued at t12 against requests around it. The window
// is 300 s back and 30 s ahead, edges included, at full precision, and
// the skew does not widen it.
func (g *gen) window(holder string) {
	name := "dpop/window-" + holder
	t := g.boundTo(name, holder)
	alg := map[string]string{"alice": "EdDSA", "carol": "ES256"}[holder]
	p := &DPoP{Proof: g.handProof(holder, t, "jti-"+name, "POST", mcpURI, Now, false), Method: "POST", URI: mcpURI}
	at := func(d time.Duration) string { return Now.Add(d).Format(time.RFC3339Nano) }
	r := req().withProof(p)
	reqs := []Request{
		r.want(),
		r.at(at(300 * time.Second)).want(),
		r.at(at(300*time.Second + time.Millisecond)).want(refDPoP(0)),
		r.at(at(301 * time.Second)).want(refDPoP(0)),
		r.at(at(-30 * time.Second)).want(),
		r.at(at(-30*time.Second - time.Millisecond)).want(refDPoP(0)),
		r.at(at(-31 * time.Second)).want(refDPoP(0)),
		req().withProof(&DPoP{Proof: p.Proof, Method: "GET", URI: mcpURI}).want(refDPoP(0)),
		req().withProof(&DPoP{Proof: p.Proof, Method: "post", URI: mcpURI}).want(refDPoP(0)),
		req().withProof(&DPoP{Proof: p.Proof, Method: "POST", URI: "mcp://workspace/write_file"}).want(refDPoP(0)),
		req().withProof(&DPoP{Proof: g.handProof("mallory", t, "jti-m", "POST", mcpURI, Now, false), Method: "POST", URI: mcpURI}).want(refDPoP(0)),
		req().want(refDPoP(0)),
		req().tool("write_file").withProof(p).want(refCaveat(0, "tools")),
		req().tool("write_file").want(refCaveat(0, "tools"), refDPoP(0)),
	}
	if holder == "carol" {
		high := &DPoP{Proof: g.handProof(holder, t, "jti-"+name+"-high", "POST", mcpURI, Now, true), Method: "POST", URI: mcpURI}
		reqs = append(reqs, req().withProof(high).want())
	}
	g.add(Vector{Name: name, Description: fmt.Sprintf("bound to %s (%s); the proof's iat is 2026-11-30T12:00:00Z: "+
		"accepted from 300 s after to 30 s before it, edges included, at full precision; htm exact; "+
		"the dpop refusal comes after the caveats' and names the holder's block", holder, alg),
		Requests: reqs}, t, "root-h", false)
	g.add(Vector{Name: name + "-skew", Description: "a skew of 60 s widens until and nbf, never the proof window",
		Options:  &Options{SkewSeconds: 60},
		Requests: []Request{r.at(at(301 * time.Second)).want(refDPoP(0)), r.at(at(-31 * time.Second)).want(refDPoP(0))}}, t, "root-h", false)
}

// htu: the proof's htu and the expected URI are equal after
// normalisation (FORMAT.md §4.5).
func (g *gen) htu() {
	name := "dpop/htu"
	t := g.boundTo(name, "alice")
	cases := []struct{ proof, expected, want string }{
		{"HTTPS://Ex.ORG:443/a/./b/../c", "https://ex.org/a/c", "allowed"},
		{"https://ex.org/a/c", "HTTPS://EX.org:443/a/b/../c?x=1#f", "allowed"},
		{"https://ex.org/a/c?q=1#frag", "https://ex.org/a/c", "allowed"},
		{"http://ex.org:80", "http://ex.org/", "allowed"},
		{"https://ex.org:/a", "https://ex.org/a", "allowed"},
		{"wss://ex.org:443/s", "wss://ex.org/s", "allowed"},
		{"ws://ex.org:0080/s", "ws://ex.org/s", "allowed"},
		{"https://ex.org/%7e%2f%41", "https://ex.org/~%2FA", "allowed"},
		{"https://ex.org/a b", "https://ex.org/a%20b", "allowed"},
		{"https://[::1]:443/", "https://[::1]/", "allowed"},
		{"mcp://Workspace/read_file", mcpURI, "allowed"},
		{"https://ex.org:8443/a", "https://ex.org/a", "refused"},
		{"http://ex.org:443/a", "http://ex.org/a", "refused"},
		{"https://ex.org/A", "https://ex.org/a", "refused"},
		{"http://ex.org/a", "https://ex.org/a", "refused"},
		{"https://ex.org/a/", "https://ex.org/a", "refused"},
		{"https://ex.org/%2f", "https://ex.org//", "refused"},
		{"https://user@ex.org/a", "https://ex.org/a", "refused"},
		{"https://ex.org/a", "https://user@ex.org/a", "refused"},
		{"urn:x", "urn:x", "refused"},
		{"https://ex.org:65536/a", "https://ex.org:65536/a", "refused"},
		{"https://ex.org/a(b c", "https://ex.org/a(b%20c", "allowed"},
		{"https://ex.org/a%2Fb c", "https://ex.org/a%2Fb%20c", "allowed"},
		{"https://ex.org/a%2Fb c", "https://ex.org/a/b%20c", "refused"},
		{"https://ex.org/\u00e9\"<>", "https://ex.org/%c3%a9%22%3c%3E", "allowed"},
		{"https://b%C3%BCcher.example/", "https://b%C3%BCcher.example/", "refused"},
		{"https://a<b.example/", "https://a<b.example/", "refused"},
		{"https://ex.org/a?%zz", "https://ex.org/a", "refused"},
		{"https://ex.org/a?q d#f g", "https://ex.org/a", "allowed"},
		{"https://ex.org/a%2", "https://ex.org/a%2", "refused"},
	}
	var reqs []Request
	for i, c := range cases {
		p := &DPoP{Proof: g.handProof("alice", t, fmt.Sprint("jti-htu-", i), "POST", c.proof, Now, false), Method: "POST", URI: c.expected}
		r := req().withProof(p).want()
		if c.want == "refused" {
			r = r.want(refDPoP(0))
		}
		reqs = append(reqs, r)
	}
	g.add(Vector{Name: name, Description: "htu normalisation: scheme and host lowercased, default and empty ports dropped, " +
		"percent-encodings normalised, dot segments removed, query and fragment dropped, userinfo refused; each proof's htu against the expected URI",
		Requests: reqs}, t, "root-h", false)
}

// rebindES256: carol (ES256) rebinds her ticket to bob. The rebinding
// signature must have a low S (FORMAT.md §4.4).
func (g *gen) rebindES256() {
	for _, c := range []struct {
		name  string
		highS bool
		want  []Refusal
	}{{"hmac/rebound-es256-low-s", false, nil}, {"hmac/rebound-es256-high-s", true, []Refusal{refWiden(1, "holder")}}} {
		t := g.boundTo(c.name, "carol")
		t = g.appendSigned(t, []caveat.Caveat{g.bind("bob")}, "carol", c.highS)
		p := &DPoP{Proof: g.handProof("bob", t, "jti-"+c.name, "POST", mcpURI, Now, false), Method: "POST", URI: mcpURI}
		g.add(Vector{Name: c.name, Description: "bound to carol (ES256), rebound to bob by carol's signature with a " +
			map[bool]string{false: "low", true: "high"}[c.highS] + " S",
			Requests: []Request{req().withProof(p).want(c.want...)}}, t, "root-h", false)
	}
}
