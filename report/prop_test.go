package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/chain"
)

// TestAnyLogRenders: any verified log, whatever its records hold (kinds,
// ids, blocks, agent-chosen text, notes that look like caveats or not),
// builds and renders without a panic, counts every record, and puts no
// tag of a record's text on the page.
func TestAnyLogRenders(t *testing.T) {
	sk := testKey(t)
	text := rapid.OneOf(
		rapid.StringMatching(`[a-z=/._ ,"<>&'-]{0,40}`),
		rapid.String().Filter(func(s string) bool { return len(s) <= 200 }),
		rapid.SampledFrom([]string{"", "calls=3", "calls=0", "calls=x", "total=5USD", "tools=a,b calls=2 holder=abc", `intent="a b" calls=1`,
			" calls=4", "=", "intent=", "<script>x</script>", "request ; calls=2"}),
	)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(rt, "n")
		var rs []chain.Record
		for i := range n {
			r := chain.Record{Kind: chain.Kind(rapid.IntRange(1, 8).Draw(rt, "kind"))}
			if rapid.Bool().Draw(rt, "ticket") {
				r.FamilyID = id(byte(rapid.IntRange(0, 2).Draw(rt, "family")))
				r.TicketID = id(byte(rapid.IntRange(0, 4).Draw(rt, "tid")))
				r.Block = rapid.IntRange(0, 3).Draw(rt, "block")
			}
			r.Tool, r.Op = text.Draw(rt, "tool"), text.Draw(rt, "op")
			for range rapid.IntRange(0, 3).Draw(rt, "subjects") {
				s := text.Draw(rt, "subject")
				if s != "" {
					r.Subjects = append(r.Subjects, s)
				}
			}
			r.Check, r.Caveat, r.Reason, r.Note = text.Draw(rt, "check"), text.Draw(rt, "caveat"), text.Draw(rt, "reason"), text.Draw(rt, "note")
			if r.Kind == chain.KindAllowed && rapid.Bool().Draw(rt, "approval") {
				r.Approvals = []chain.Approval{{KeyID: "k", ID: [32]byte{byte(i)}}}
			}
			rs = append(rs, r)
		}
		dir, err := os.MkdirTemp(t.TempDir(), "prop")
		if err != nil {
			rt.Fatal(err)
		}
		p := writeLog(t, sk, dir, "p.log", rs)
		r, err := Build(p, Options{Key: sk.Verifying(), Origin: testOrigin, Now: t0.Add(time.Hour)})
		if err != nil {
			rt.Fatal(err)
		}
		if !r.Verdict.OK || r.Counts.Total != int64(n) {
			rt.Fatalf("verdict %+v, counted %d of %d", r.Verdict, r.Counts.Total, n)
		}
		var b bytes.Buffer
		if err := r.WriteHTML(&b); err != nil {
			rt.Fatal(err)
		}
		if strings.Contains(b.String(), "<script") {
			rt.Fatal("a record's <script reached the page")
		}
	})
}
