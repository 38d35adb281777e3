package vecgen

import "github.com/tickettool/tickettool/token"

// req is a call of read_file with operation invoke at t12 and nothing
// else; the methods below change one field each.
func req() Request { return Request{Now: t12, Tool: "read_file", Op: "invoke"} }

func (r Request) at(now string) Request        { r.Now = now; return r }
func (r Request) tool(s string) Request        { r.Tool = s; return r }
func (r Request) op(s string) Request          { r.Op = s; return r }
func (r Request) paths(p ...string) Request    { r.Paths = p; return r }
func (r Request) urls(u ...string) Request     { r.URLs = u; return r }
func (r Request) cost(c string) Request        { r.Cost = c; return r }
func (r Request) aud(a string) Request         { r.Audience = a; return r }
func (r Request) withProof(p *DPoP) Request    { r.DPoP = p; return r }
func (r Request) want(refs ...Refusal) Request { return expect(r, refs...) }

func expect(r Request, refs ...Refusal) Request {
	r.Expect, r.Refusals = "allowed", refs
	if len(refs) > 0 {
		r.Expect = "refused"
	}
	return r
}

// handChain mints blocks[0] under root-h and appends every further block
// by hand, as a holder could, without the narrowing check Attenuate makes:
// so that a widening block can be built.
func (g *gen) handChain(name string, blocks ...[]string) *token.Ticket {
	t := g.mint(name, "root-h", g.caveats(blocks[0]...))
	for _, b := range blocks[1:] {
		t = g.appendHMAC(t, g.caveats(b...), "")
	}
	return t
}

// addChain records an HMAC vector of hand-chained blocks.
func (g *gen) addChain(name, desc string, opts *Options, blocks [][]string, reqs ...Request) {
	t := g.handChain(name, blocks...)
	if t == nil {
		g.fail(errorf(name + ": no ticket"))
		return
	}
	g.add(Vector{Name: name, Description: desc, Options: opts, Requests: reqs}, t, "root-h", false)
}

func blocks(bs ...[]string) [][]string { return bs }
