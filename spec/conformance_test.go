package spec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/tickettool/tickettool/spec/internal/vecgen"
)

func load(t *testing.T) (*vecgen.File, []byte) {
	t.Helper()
	raw, err := os.ReadFile("vectors/tickets.json")
	if err != nil {
		t.Fatal(err)
	}
	var f vecgen.File
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	return &f, raw
}

// TestConformance runs every vector, valid and invalid, against the Go
// implementation.
func TestConformance(t *testing.T) {
	f, _ := load(t)
	if len(f.Vectors) < 40 {
		t.Fatalf("only %d vectors", len(f.Vectors))
	}
	t.Run("args", func(t *testing.T) {
		if len(f.Args) < 20 {
			t.Fatalf("only %d args cases", len(f.Args))
		}
		if err := f.RunArgs(); err != nil {
			t.Fatal(err)
		}
	})
	classes := map[string]int{}
	for i := range f.Vectors {
		v := &f.Vectors[i]
		t.Run(v.Name, func(t *testing.T) {
			if err := f.Run(v); err != nil {
				t.Fatal(err)
			}
		})
		classes[v.Error]++
		for _, r := range v.Requests {
			classes[r.Expect]++
			for _, ref := range r.Refusals {
				classes["refused:"+ref.Check]++
			}
			for _, b := range r.Budgets {
				classes["budget:"+b.Kind]++
				if b.Discharge != nil {
					classes["budget:discharge"]++
				}
			}
			if len(r.Approvals) > 0 {
				classes["approvals"]++
			}
			if r.Charge != "" {
				classes["charge:"+r.Charge]++
			}
		}
	}
	// Every error class, every check a verifier names, both kinds of
	// budget, used discharges with their budgets, and both outcomes of a
	// sequence's charge are exercised.
	for _, c := range []string{"malformed", "allowed", "refused:key", "refused:chain", "refused:mode",
		"refused:attenuation", "refused:revoked", "refused:policy", "refused:caveat", "refused:dpop",
		"budget:calls", "budget:total", "refused:approval", "approvals", "budget:discharge", "charge:ok", "charge:exhausted"} {
		if classes[c] == 0 {
			t.Errorf("no vector exercises %s", c)
		}
	}
}

// TestVectorsUpToDate: regenerating the vectors changes no byte.
func TestVectorsUpToDate(t *testing.T) {
	_, raw := load(t)
	out, err := vecgen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, raw) {
		t.Fatal("vectors/tickets.json is stale or generation is not deterministic: run `go generate ./spec` and review the diff")
	}
}
