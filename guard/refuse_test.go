package guard_test

import (
	"context"
	"os"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
)

// TestRefusePrepared: an enforcement point's own refusal is a refused
// decision with its receipt (check request, the reason, the ticket's
// family), and it charges nothing: the one call the budget allows is still
// allowed after it.
func TestRefusePrepared(t *testing.T) {
	tk, keys := fixture(t, "calls=1")
	log, path := receiptLog(t)
	ctx := context.Background()
	g, err := guard.New(guard.Config{Keys: keys, Receipts: log})
	if err != nil {
		t.Fatal(err)
	}
	pt, err := g.PrepareTicket(tk)
	if err != nil {
		t.Fatal(err)
	}
	req := &caveat.Request{Tool: "read_file", Op: "invoke", Paths: []string{"rel/a"}}
	d, err := g.RefusePrepared(ctx, pt, req, t0, "path \"rel/a\" is relative")
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed || len(d.Refusals) != 1 || d.Refusals[0].Check != guard.CheckRequest {
		t.Fatalf("got %+v", d)
	}
	if d, err := g.VerifyPrepared(ctx, pt, readFile(), t0); err != nil || !d.Allowed {
		t.Fatalf("the refusal charged the budget: %v %v", err, d.Refusals)
	}
	if _, err := g.RefusePrepared(ctx, pt, req, t0, ""); err == nil {
		t.Fatal("a refusal without a reason was recorded")
	}
	log.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []chain.Record
	for e, err := range chain.Scan(f) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, e.Record)
	}
	if len(recs) != 2 {
		t.Fatalf("%d receipts, want 2", len(recs))
	}
	r := recs[0]
	if r.Kind != chain.KindRefused || r.Check != "request" || r.Reason != `path "rel/a" is relative` ||
		len(r.FamilyID) == 0 || len(r.Subjects) != 1 || r.Subjects[0] != "rel/a" {
		t.Errorf("receipt %+v", r)
	}
}
