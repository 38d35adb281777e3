package guard_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestReceiptFields pins what each receipt names (chain/FORMAT.md §1.2):
// ticket is ID_n, the id of the ticket's last block; family is block 0's
// ticket id; block is n, or the refusing block when the first refusal
// names one; a refusal before the chain verified names no ticket or
// family; a settlement names the same ticket, family and block as the
// decision it settles.
func TestReceiptFields(t *testing.T) {
	tk, keys := fixture(t, "ops=invoke,delegate")
	cs, _ := caveat.ParseAll([]string{"calls=3"}, t0)
	child, err := tk.Attenuate(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.Validate(child, keys, t0, nil)
	if err != nil || len(v.BlockIDs) != 2 {
		t.Fatalf("validate: %v %v", err, v.Refusals)
	}
	id0, id1, fam := v.BlockIDs[0][:], v.BlockIDs[1][:], child.UnverifiedBlocks()[0].TicketID
	if len(fam) != 16 {
		t.Fatalf("family id of %d bytes", len(fam))
	}
	log, path := receiptLog(t)
	ctx := context.Background()
	g, err := guard.New(guard.Config{Keys: keys, Receipts: log, Hold: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := fixedkey.Signing(key.HMACSHA256, "other", "receipt other root")
	if err != nil {
		t.Fatal(err)
	}
	otherKeys, _ := token.NewKeyring(otherKey.Verifying())
	g2, err := guard.New(guard.Config{Keys: otherKeys, Receipts: log})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(g.RecordMinted(tk, t0))
	must(g.RecordDelegated(child, t0))
	d, err := g.Verify(ctx, child, readFile(), t0)
	if err != nil || !d.Allowed {
		t.Fatalf("check: %v %v", err, d.Refusals)
	}
	must(g.Settle(ctx, &d, guard.Capture, t0))
	if d, err := g.Verify(ctx, child, &caveat.Request{Tool: "write_file", Op: "invoke"}, t0); err != nil || d.Allowed {
		t.Fatalf("write_file: %v %v", err, d.Allowed)
	}
	if d, err := g2.Verify(ctx, child, readFile(), t0); err != nil || d.Allowed || d.Refusals[0].Block != -1 {
		t.Fatalf("unknown key: %v %+v", err, d.Refusals)
	}

	type want struct {
		kind          chain.Kind
		ticket, fam   []byte
		block         int
		check, caveat string
	}
	wants := []want{
		{chain.KindMinted, id0, fam, 0, "", ""},
		{chain.KindDelegated, id1, fam, 1, "", ""},
		{chain.KindAllowed, id1, fam, 1, "", ""},
		{chain.KindCaptured, id1, fam, 1, "", ""},
		{chain.KindRefused, id1, fam, 0, "caveat", "tools"}, // block 0's tools caveat refused
		{chain.KindRefused, nil, nil, 1, "key", ""},         // names no block: n is recorded
	}
	log.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	i := 0
	for e, err := range chain.Scan(f) {
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(wants) {
			t.Fatalf("extra record %v", e.Record)
		}
		w, r := wants[i], e.Record
		if r.Kind != w.kind || !bytes.Equal(r.TicketID, w.ticket) || !bytes.Equal(r.FamilyID, w.fam) ||
			r.Block != w.block || r.Check != w.check || r.Caveat != w.caveat {
			t.Errorf("record %d: %s ticket %x family %x block %d check %q caveat %q, want %+v",
				i, r.Kind, r.TicketID, r.FamilyID, r.Block, r.Check, r.Caveat, w)
		}
		i++
	}
	if i != len(wants) {
		t.Fatalf("%d records, want %d", i, len(wants))
	}
}
