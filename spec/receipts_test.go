package spec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/tickettool/tickettool/spec/internal/vecgen"
)

func loadReceipts(t *testing.T) (*vecgen.ReceiptFile, []byte) {
	t.Helper()
	raw, err := os.ReadFile("vectors/receipts.json")
	if err != nil {
		t.Fatal(err)
	}
	var f vecgen.ReceiptFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	return &f, raw
}

// TestReceiptConformance runs every receipt log and tampered case through
// package chain, in memory and from a log file.
func TestReceiptConformance(t *testing.T) {
	f, _ := loadReceipts(t)
	kinds := map[string]bool{}
	for i := range f.Logs {
		l := &f.Logs[i]
		t.Run(l.Name, func(t *testing.T) {
			if err := f.RunLog(l); err != nil {
				t.Fatal(err)
			}
		})
		for _, r := range l.Records {
			kinds[l.Key+"/"+r.Fields.Kind] = true
			if len(r.Fields.Approvals) > 0 {
				kinds[l.Key+"/approvals"] = true // field 17
			}
		}
	}
	results := map[string]int{}
	for i := range f.Cases {
		c := &f.Cases[i]
		t.Run(c.Name, func(t *testing.T) {
			if err := f.RunCase(c, t.TempDir()); err != nil {
				t.Fatal(err)
			}
		})
		switch {
		case c.Expect.Break != nil && c.Expect.Break.Torn:
			results["torn"]++
		case c.Expect.Break != nil:
			results["broken"]++
		default:
			results["checkpoint:"+c.Expect.Checkpoint]++
		}
	}
	// Both algorithms, every kind, and every outcome are exercised.
	for _, alg := range []string{"ed25519", "hmac"} {
		for _, k := range []string{"intent", "minted", "delegated", "allowed", "refused", "other", "captured", "released", "approvals"} {
			if !kinds[alg+"/"+k] {
				t.Errorf("no %s log holds a %s record", alg, k)
			}
		}
	}
	for _, r := range []string{"torn", "broken", "checkpoint:ok", "checkpoint:truncated", "checkpoint:forked", "checkpoint:invalid"} {
		if results[r] == 0 {
			t.Errorf("no case expects %s", r)
		}
	}
}

// TestReceiptVectorsUpToDate: regenerating the receipt vectors changes no
// byte.
func TestReceiptVectorsUpToDate(t *testing.T) {
	_, raw := loadReceipts(t)
	out, err := vecgen.GenerateReceipts()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, raw) {
		t.Fatal("vectors/receipts.json is stale or generation is not deterministic: run `go generate ./spec` and review the diff")
	}
}
