package verify_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestPairVerifyText measures VerifyText against Parse + Verify as pairs
// in one process: short batches of each alternate (ABBA), and the median
// and range of the per-pair ratios are logged. It runs only when
// TICKETTOOL_PAIRS is set (the number of pairs), since it is a
// measurement, not a check:
//
//	TICKETTOOL_PAIRS=15 go test -run TestPairVerifyText -v ./verify/
func TestPairVerifyText(t *testing.T) {
	pairs := 0
	if n := os.Getenv("TICKETTOOL_PAIRS"); n != "" {
		for _, c := range n {
			pairs = pairs*10 + int(c-'0')
		}
	}
	if pairs == 0 {
		t.Skip("set TICKETTOOL_PAIRS to measure")
	}
	for _, mode := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		tk, keys := benchTicket(t, mode)
		text := tk.String()
		var d verify.Decision
		parseVerify := func() {
			p, _ := token.Parse(text)
			if d, _ := verify.Verify(p, benchReq, keys, t0, nil); !d.Allowed {
				t.Fatal(d.Refusals)
			}
		}
		verifyText := func() {
			if err := verify.VerifyText(&d, text, benchReq, keys, t0, nil); err != nil || !d.Allowed {
				t.Fatal(err)
			}
		}
		const batch = 2000
		batchTime := func(f func()) float64 {
			start := time.Now()
			for range batch {
				f()
			}
			return float64(time.Since(start).Nanoseconds()) / batch
		}
		var a, b, r []float64
		for i := range pairs {
			var x, y float64
			if i%2 == 0 {
				x = batchTime(parseVerify)
				y = batchTime(verifyText)
			} else {
				y = batchTime(verifyText)
				x = batchTime(parseVerify)
			}
			a, b, r = append(a, x), append(b, y), append(r, y/x)
		}
		t.Logf("%v: Parse+Verify %.0f ns, VerifyText %.0f ns (medians); VerifyText/(Parse+Verify) median %.3f range %.3f..%.3f, %d pairs of %d",
			mode, median(a), median(b), median(r), slices.Min(r), slices.Max(r), pairs, batch)
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
