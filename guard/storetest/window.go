package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// testReplayAcrossWindows: guards with different DPoP windows on one store
// (two handles) never admit one proof twice. A 60 s guard admits a proof
// at its iat; two minutes later a 300 s guard, which would accept the
// proof's age, refuses it as replayed, and so does a guard of the largest
// window at its last instant; a fresh proof is admitted. A proof
// remembered only for the admitting guard's own window (iat + 60 s + the
// skew) would be admitted again.
func testReplayAcrossWindows(t *testing.T, f Factory) {
	open := f(t)
	s1, s2 := open(t), open(t)
	root, keys, err := dischargeRoot()
	if err != nil {
		t.Fatal(err)
	}
	holder, err := fixedkey.Holder(key.Ed25519, "storetest holder")
	if err != nil {
		t.Fatal(err)
	}
	iat := Base().Truncate(time.Second)
	cs, err := caveat.ParseAll([]string{"tools=read_file", "until=" + iat.Add(time.Hour).UTC().Format(time.RFC3339),
		"holder=" + holder.Thumbprint()}, iat)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := token.Mint(root, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	newGuard := func(s guard.Store, maxAge, skew time.Duration) *guard.Guard {
		g, err := guard.New(guard.Config{Keys: keys, Store: s,
			Options: verify.Options{DPoP: verify.DPoPOptions{MaxAge: maxAge, FutureSkew: skew}}})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	const uri = "mcp://fs/read_file"
	proof := func() *caveat.Request {
		p, err := dpop.Make(holder, "POST", uri, dpop.MakeOptions{AccessToken: tk.String(), IssuedAt: iat})
		if err != nil {
			t.Fatal(err)
		}
		return &caveat.Request{Tool: "read_file", Op: "invoke",
			Holder: &caveat.HolderProof{Proof: p, Method: "POST", URI: uri}}
	}
	used := proof()
	for _, c := range []struct {
		name  string
		g     *guard.Guard
		req   *caveat.Request
		at    time.Time
		allow bool
	}{
		{"60 s guard, at iat", newGuard(s1, time.Minute, 0), used, iat, true},
		{"300 s guard, 2 min later", newGuard(s2, 5*time.Minute, 0), used, iat.Add(2 * time.Minute), false},
		{"largest window, at its end", newGuard(s1, dpop.MaxAgeLimit, dpop.FutureSkewLimit), used, iat.Add(dpop.MaxAgeLimit), false},
		{"300 s guard, 2 min later, a fresh proof", newGuard(s2, 5*time.Minute, 0), proof(), iat.Add(2 * time.Minute), true},
	} {
		d, err := c.g.Verify(context.Background(), tk, c.req, c.at)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.Allowed != c.allow {
			t.Fatalf("%s: allowed %v, want %v (%v)", c.name, d.Allowed, c.allow, d.Refusals)
		}
		if !c.allow && (len(d.Refusals) != 1 || d.Refusals[0].Check != verify.CheckDPoP) {
			t.Fatalf("%s: refused as %v, want a replayed proof", c.name, d.Refusals)
		}
	}
}
