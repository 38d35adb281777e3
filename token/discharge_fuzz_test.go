package token_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// FuzzParseDischarge: ParseDischarge never panics, refuses only with
// ErrMalformedDischarge, and what it accepts is exactly one text: it
// re-encodes to itself, as text and as bytes.
func FuzzParseDischarge(f *testing.F) {
	lead := edKey(f, "lead")
	for _, texts := range [][]string{
		{"until=2026-11-30T12:10:00Z"},
		{"until=2026-11-30T12:10:00Z", "calls=1", "tools=post"},
		{"tools=post", "paths=src/a/", "until=2026-11-30T12:10:00Z", "nbf=2026-11-30T12:00:00Z", "cost=0.50EUR", "aud=pricing"},
	} {
		d := approve(f, lead, bind0, texts...)
		f.Add(d.String())
		f.Add(token.Prefix + d.String()[len(token.DischargePrefix):])
	}
	for _, k := range bothKeys(f) {
		tk := chainOf(f, k, scenario...)
		f.Add(tk.String())
		f.Add(token.DischargePrefix + tk.String()[len(token.Prefix):])
	}
	f.Add("")
	f.Add(token.DischargePrefix)
	f.Add(token.DischargePrefix + "oA")
	f.Fuzz(func(t *testing.T, text string) {
		d, err := token.ParseDischarge(text)
		if err != nil {
			if !errors.Is(err, token.ErrMalformedDischarge) || !errors.Is(err, token.ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformedDischarge", err)
			}
			return
		}
		if d.String() != text {
			t.Fatalf("accepted text does not re-encode to itself")
		}
		back, err := token.DecodeDischarge(d.Encode())
		if err != nil || !bytes.Equal(back.Encode(), d.Encode()) || back.ID() != d.ID() {
			t.Fatalf("bytes of an accepted discharge do not round trip: %v", err)
		}
		// Accessors and Verify never panic on what decodes.
		_, _, _ = d.UnverifiedKeyID(), d.UnverifiedBinding(), d.UnverifiedCaveats()
		if d.Verify(lead.Verifying()) == nil && d.UnverifiedKeyID() != "lead" {
			t.Fatal("verified under a key of another id")
		}
	})
}

// genDischargeCaveats draws a set of ordinary caveats with an until, as an
// approver would give them.
func genDischargeCaveats(t *rapid.T) []caveat.Caveat {
	cs := genBlock(t, "d")
	for i, c := range cs {
		if c.Kind == caveat.Until {
			cs = append(cs[:i], cs[i+1:]...)
			break
		}
	}
	u, err := caveat.NewUntil(time.Unix(rapid.Int64Range(0, 1<<34).Draw(t, "until"), 0))
	if err != nil {
		t.Fatal(err)
	}
	if rapid.Bool().Draw(t, "nbf?") {
		if n, err := caveat.NewNotBefore(time.Unix(rapid.Int64Range(0, 1<<34).Draw(t, "nbf"), 0)); err == nil {
			cs = append(cs, n)
		}
	}
	if rapid.Bool().Draw(t, "aud?") {
		if a, err := caveat.NewAudience(rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"pricing", "blog", "mcp"}), 1, 3, rapid.ID[string]).Draw(t, "aud")...); err == nil {
			cs = append(cs, a)
		}
	}
	return append(cs, u)
}

// TestPropApproveRoundTrip: Approve → String → ParseDischarge → Verify
// holds for any caveat set with an until, any binding and either of two
// approvers, and the parsed discharge names what was approved.
func TestPropApproveRoundTrip(t *testing.T) {
	keys := map[string]*key.Signing{}
	for _, id := range []string{"lead", "cfo:pricing"} {
		k, err := fixedkey.Signing(key.Ed25519, id, "approver "+id)
		if err != nil {
			t.Fatal(err)
		}
		keys[id] = k
	}
	rapid.Check(t, func(t *rapid.T) {
		id := rapid.SampledFrom([]string{"lead", "cfo:pricing"}).Draw(t, "approver")
		var bind [32]byte
		copy(bind[:], rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "binding"))
		cs := genDischargeCaveats(t)
		d, err := token.Approve(keys[id], bind, cs, fixedkey.ApprovedAt(cs))
		if err != nil {
			t.Fatalf("approve: %v", err)
		}
		back, err := token.ParseDischarge(d.String())
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if err := back.Verify(keys[id].Verifying()); err != nil {
			t.Fatalf("verify: %v", err)
		}
		if back.UnverifiedKeyID() != id || back.UnverifiedBinding() != bind || back.ID() != d.ID() {
			t.Fatal("round trip changed the discharge")
		}
		got := map[caveat.Kind]string{}
		for _, c := range back.UnverifiedCaveats() {
			got[c.Kind] = c.String()
		}
		if len(got) != len(cs) {
			t.Fatalf("caveats: %d, want %d", len(got), len(cs))
		}
		for _, c := range cs {
			if got[c.Kind] != c.String() {
				t.Fatalf("caveat %v: %q, want %q", c.Kind, got[c.Kind], c.String())
			}
		}
		for other := range keys {
			if other != id && back.Verify(keys[other].Verifying()) == nil {
				t.Fatal("verifies under another approver's key")
			}
		}
	})
}
