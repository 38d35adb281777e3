package verify_test

import (
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/verify"
)

// TestApprovalFailsClosed: a ticket with an approval caveat is refused for
// every request until discharges are checked (issue #19): the caveat
// itself holds in caveat.Evaluate, so without this a ticket needing an
// approval would be allowed without one.
func TestApprovalFailsClosed(t *testing.T) {
	for _, f := range fixtures(t) {
		a := caveat.Approver{KeyID: "lead", Key: [32]byte{9}, Nonce: [16]byte{1}}
		c, err := caveat.NewApproval(a)
		if err != nil {
			t.Fatal(err)
		}
		child, err := f.parent.Attenuate([]caveat.Caveat{c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := verify.Verify(child, req("read_file", "src/x", "https://api.example.org/x"), f.keys, t0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed || len(d.Refusals) != 1 || d.Refusals[0].Kind != caveat.Approval || d.Refusals[0].Block != 1 {
			t.Errorf("%s: allowed=%v %v", f.name, d.Allowed, d.Refusals)
		}
		// The same ticket without the approval block is allowed.
		if d, _ := verify.Verify(f.parent, req("read_file", "src/x", "https://api.example.org/x"), f.keys, t0, nil); !d.Allowed {
			t.Errorf("%s: parent refused: %v", f.name, d.Refusals)
		}
	}
}
