package bench

import (
	"errors"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/verify"
)

// TestEveryLibraryRefusesOutOfScope holds every library's benchmarked verify
// to the scenario: it allows the in-scope request and refuses one outside
// each caveat, so no benchmark measures a verify that skips its caveats.
func TestEveryLibraryRefusesOutOfScope(t *testing.T) {
	with := func(f func(*request)) request { r := inScope; f(&r); return r }
	cases := []struct {
		name  string
		req   request
		allow bool
		kind  caveat.Kind // for tickettool: the caveat that must refuse
	}{
		{"in scope", inScope, true, 0},
		{"path src/refund/x.go", with(func(r *request) { r.Path = "src/refund/x.go" }), false, caveat.Paths},
		{"op delete", with(func(r *request) { r.Op = "delete" }), false, caveat.Ops},
		{"tool delete_file", with(func(r *request) { r.Tool = "delete_file" }), false, caveat.Tools},
		{"after expiry", with(func(r *request) { r.Now = expiry.Add(time.Minute) }), false, caveat.Until},
	}
	for _, lib := range libraries(t) {
		t.Run(lib.name(), func(t *testing.T) {
			enc := must(lib.mint())(t)
			t.Logf("encoded: %d bytes binary, %d bytes serialized", lib.size(enc), len(enc))
			for _, c := range cases {
				err := lib.verifier(t, enc, c.req)()
				switch {
				case c.allow && err != nil:
					t.Errorf("%s: refused: %v", c.name, err)
				case !c.allow && err == nil:
					t.Errorf("%s: allowed, want refused", c.name)
				case !c.allow:
					var re *verify.RefusedError
					if errors.As(err, &re) && (len(re.Refusals) != 1 || re.Refusals[0].Kind != c.kind) {
						t.Errorf("%s: refused by %v, want exactly caveat %v", c.name, re.Refusals, c.kind)
					}
				}
			}
		})
	}
}

// TestDPoPBindingIsChecked: the bound ticket is refused without its proof,
// and with a proof by another key.
func TestDPoPBindingIsChecked(t *testing.T) {
	bound := libraries(t)[2].(*tickettool)
	text := string(must(bound.mint())(t))
	r := ttRequest(inScope)
	if err := ttVerifier(text, r, bound.keys, t0)(); err == nil {
		t.Error("bound ticket allowed without a DPoP proof")
	}
	other := libraries(t)[2].(*tickettool) // a fresh holder key
	r.Holder = &caveat.HolderProof{Proof: other.proof(t, text, inScope), Method: htm, URI: htu}
	if err := ttVerifier(text, r, bound.keys, t0)(); err == nil {
		t.Error("bound ticket allowed with another key's proof")
	}
}

// TestScaleTickets: every ticket the scale benchmarks verify allows its
// request and refuses a near miss.
func TestScaleTickets(t *testing.T) {
	for _, n := range scaleBlocks {
		text, keys := scaleBlocksTicket(t, n)
		if err := ttVerifier(text, ttRequest(inScope), keys, t0)(); err != nil {
			t.Errorf("blocks %d: %v", n, err)
		}
		if err := ttVerifier(text, ttRequest(request{Tool: "delete_file", Op: "invoke", Path: inScope.Path}), keys, t0)(); err == nil {
			t.Errorf("blocks %d: tool delete_file allowed", n)
		}
	}
	for _, kind := range []string{"tools", "paths"} {
		for _, n := range scaleLists {
			text, keys, req := scaleListTicket(t, kind, n)
			if err := ttVerifier(text, ttRequest(req), keys, t0)(); err != nil {
				t.Errorf("%s %d: %v", kind, n, err)
			}
			miss := req
			if kind == "tools" {
				miss.Tool = "e9999"
			} else {
				miss.Path = "src/e9999/rules.go"
			}
			if err := ttVerifier(text, ttRequest(miss), keys, t0)(); err == nil {
				t.Errorf("%s %d: near miss allowed", kind, n)
			}
		}
	}
}
