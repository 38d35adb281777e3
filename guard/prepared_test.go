package guard_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// A prepared ticket goes through the same store as Verify: its calls
// share the budget with the ticket's other calls, a revocation in the
// store refuses it, its until refuses it once reached, and a call it does
// not cover is refused.
func TestVerifyPreparedRefusesAsVerify(t *testing.T) {
	ctx := context.Background()
	tk, keys := fixture(t, "calls=3")
	g, err := guard.New(guard.Config{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.PrepareTicket(tk)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		req   *caveat.Request
		now   time.Time
		check verify.Check // "" when allowed
		kind  caveat.Kind
	}{
		{"first call", readFile(), t0, "", 0},
		{"another tool", &caveat.Request{Tool: "write_file", Op: "invoke"}, t0, verify.CheckCaveat, caveat.Tools},
		{"second call", readFile(), t0, "", 0},
		{"at until", readFile(), t0.Add(time.Hour), verify.CheckCaveat, caveat.Until},
		{"third call, through Verify", nil, t0, "", 0},
		{"budget spent", readFile(), t0, verify.CheckCaveat, caveat.Calls},
	}
	for _, s := range steps {
		var d guard.Decision
		if s.req == nil {
			d, err = g.Verify(ctx, tk, readFile(), s.now)
		} else {
			d, err = g.VerifyPrepared(ctx, p, s.req, s.now)
		}
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if s.check == "" {
			if !d.Allowed {
				t.Fatalf("%s: refused: %v", s.name, d.Refusals)
			}
			continue
		}
		if d.Allowed || d.Refusals[0].Check != s.check || d.Refusals[0].Kind != s.kind {
			t.Fatalf("%s: got %+v, want a %s refusal of %s", s.name, d.Refusals, s.check, s.kind)
		}
	}

	tk2, keys2 := fixture(t)
	g2, _ := guard.New(guard.Config{Keys: keys2})
	p2, err := g2.PrepareTicket(tk2)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := g2.VerifyPrepared(ctx, p2, readFile(), t0); err != nil || !d.Allowed {
		t.Fatalf("before revocation: %v %v", d.Refusals, err)
	}
	if err := g2.Revoke(ctx, tk2, t0); err != nil {
		t.Fatal(err)
	}
	d, err := g2.VerifyPrepared(ctx, p2, readFile(), t0)
	if err != nil || d.Allowed || d.Refusals[0].Check != verify.CheckRevoked {
		t.Fatalf("after revocation: %+v %v", d.Refusals, err)
	}
	if _, err := g2.VerifyPrepared(ctx, nil, readFile(), t0); err == nil {
		t.Fatal("a nil prepared ticket gave no error")
	}
	// A ticket prepared by one guard (its keys, its policy) is not another
	// guard's to decide on.
	if _, err := g.VerifyPrepared(ctx, p2, readFile(), t0); err == nil {
		t.Fatal("a ticket prepared by another guard gave no error")
	}
}
