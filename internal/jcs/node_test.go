package jcs_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/internal/jcs"
)

// canonJS is RFC 8785 in ECMAScript, after the sample of its Appendix A:
// JSON.stringify for primitives, Array order kept, member names sorted by
// the default sort (UTF-16 code units). One JSON text per line in, one
// canonical text per line out.
const canonJS = `
const c = v => v === null || typeof v !== 'object' ? JSON.stringify(v)
  : Array.isArray(v) ? '[' + v.map(c).join(',') + ']'
  : '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + c(v[k])).join(',') + '}';
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(l => l !== '');
process.stdout.write(lines.map(l => c(JSON.parse(l))).join('\n') + '\n');
`

// TestMatchesECMAScript holds Canonical to a real ECMAScript engine (node,
// when installed): random doubles of every magnitude, and strings and
// member names full of characters whose escaping or order is special.
func TestMatchesECMAScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var lines []string
	for i := 0; i < 20000; i++ {
		var f float64
		switch i % 3 {
		case 0:
			f = math.Float64frombits(rng.Uint64())
		case 1:
			f = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25))
		default:
			f = float64(rng.Int64N(1<<54)) / math.Pow(10, float64(rng.IntN(12)))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		lines = append(lines, "["+strconv.FormatFloat(f, 'g', -1, 64)+"]")
	}
	lines = append(lines,
		`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7,"\ue000":8,"\ud800\udc00":9}`,
		`["\u0000\u0001\b\t\n\u000b\f\r\u001e\u001f \u007f\u2028\u2029\"\\\/<>&'"]`,
		`{"b":{"y":[],"x":{}},"a":[{"d":1e21,"c":1e-7,"":-0}]}`,
	)
	cmd := exec.Command(node, "-e", canonJS)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	want := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	if len(want) != len(lines) {
		t.Fatalf("node wrote %d lines for %d", len(want), len(lines))
	}
	bad := 0
	for i, l := range lines {
		got, err := jcs.Canonical([]byte(l))
		if err != nil || !bytes.Equal(got, want[i]) {
			t.Errorf("%s: Canonical = %s, %v; ECMAScript %s", l, got, err, want[i])
			if bad++; bad > 10 {
				t.FailNow()
			}
		}
	}
}
