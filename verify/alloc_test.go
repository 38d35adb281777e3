package verify_test

import (
	"testing"

	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestVerifyAllocations holds Parse + Verify of the performance scenario
// (bench/README.md) to its allocation count. The budget is 15; the bound
// is what the code does today (the decoded bytes, their one string copy,
// the ticket with its blocks and rooms, the block ids the Decision
// carries), so that a regression shows here before it shows in a
// benchmark table. VerifyText, the path with none, is held to 0 below.
func TestVerifyAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, tc := range []struct {
		mode key.Alg
		max  float64
	}{
		{key.HMACSHA256, 4},
		{key.Ed25519, 4},
	} {
		tk, keys := benchTicket(t, tc.mode)
		text := tk.String()
		got := testing.AllocsPerRun(200, func() {
			p, err := token.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			if d, err := verify.Verify(p, benchReq, keys, t0, nil); err != nil || !d.Allowed {
				t.Fatal(err, d.Refusals)
			}
		})
		if got > tc.max {
			t.Errorf("%v: Parse + Verify made %v allocations, want at most %v", tc.mode, got, tc.max)
		}
	}
}

// TestVerifyTextAllocations holds VerifyText, the hot path, to
// no allocation in steady state in both modes.
func TestVerifyTextAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, mode := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		tk, keys := benchTicket(t, mode)
		text := tk.String()
		var d verify.Decision
		got := testing.AllocsPerRun(200, func() {
			if err := verify.VerifyText(&d, text, benchReq, keys, t0, nil); err != nil || !d.Allowed {
				t.Fatal(err, d.Refusals)
			}
		})
		if got != 0 {
			t.Errorf("%v: VerifyText made %v allocations, want 0", mode, got)
		}
	}
}
