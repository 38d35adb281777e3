package verify_test

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Small alphabets, so that random requests often hit random caveats.
var (
	genTools = []string{"a", "b", "c", "s/a", "s/b", "t/c"}
	genOps   = []string{"delegate", "invoke", "read"}
	genPaths = []string{"src/", "src/a/", "src/a/b/", "src/b/", "srcx/", "/abs/", "/abs/x/", "/"}
	genHosts = []string{"x.com", "a.x.com", "b.a.x.com", "*.x.com", "*.a.x.com", "y.org"}
	genAud   = []string{"w1", "w2", "w3"}
)

func subsetOf(t *rapid.T, name string, from []string) []string {
	return rapid.SliceOfNDistinct(rapid.SampledFrom(from), 1, 3, rapid.ID[string]).Draw(t, name)
}

func genCaveats(t *rapid.T, label string) []caveat.Caveat {
	var cs []caveat.Caveat
	add := func(c caveat.Caveat, err error) {
		if err == nil {
			cs = append(cs, c)
		}
	}
	if rapid.Bool().Draw(t, label+" tools?") {
		add(caveat.NewTools(subsetOf(t, label+" tools", genTools)...))
	}
	if rapid.Bool().Draw(t, label+" ops?") {
		add(caveat.NewOps(subsetOf(t, label+" ops", genOps)...))
	}
	if rapid.Bool().Draw(t, label+" paths?") {
		add(caveat.NewPaths(subsetOf(t, label+" paths", genPaths)...))
	}
	if rapid.Bool().Draw(t, label+" hosts?") {
		add(caveat.NewHosts(subsetOf(t, label+" hosts", genHosts)...))
	}
	if rapid.Bool().Draw(t, label+" aud?") {
		add(caveat.NewAudience(subsetOf(t, label+" aud", genAud)...))
	}
	if rapid.Bool().Draw(t, label+" until?") {
		add(caveat.NewUntil(t0.Add(time.Duration(rapid.IntRange(-2, 3).Draw(t, label+" until")) * time.Hour)))
	}
	if rapid.Bool().Draw(t, label+" nbf?") {
		add(caveat.NewNotBefore(t0.Add(time.Duration(rapid.IntRange(-3, 2).Draw(t, label+" nbf")) * time.Hour)))
	}
	if rapid.Bool().Draw(t, label+" cost?") {
		add(caveat.NewCost(caveat.Amount{Micros: uint64(rapid.IntRange(0, 3).Draw(t, label+" cost")) * 500000, Currency: rapid.SampledFrom([]string{"USD", "EUR"}).Draw(t, label+" cur")}))
	}
	return cs
}

func genRequest(t *rapid.T) *caveat.Request {
	r := &caveat.Request{
		Tool:     rapid.SampledFrom(append([]string{"", "d", "s/c", "t/a"}, genTools...)).Draw(t, "tool"),
		Op:       rapid.SampledFrom(append([]string{""}, genOps...)).Draw(t, "op"),
		Audience: rapid.SampledFrom(append([]string{""}, genAud...)).Draw(t, "aud"),
	}
	paths := []string{"src/a/x", "src/a", "src/a/b/c", "src/b/../a/x", "srcx/y", "/abs/x/y", "/etc/p", "src//a", "src/c"}
	for range rapid.IntRange(0, 2).Draw(t, "npaths") {
		r.Paths = append(r.Paths, rapid.SampledFrom(paths).Draw(t, "path"))
	}
	urls := []string{"https://x.com/", "https://a.x.com/p", "https://b.a.x.com:8443/", "https://A.X.COM./", "https://x.com@y.org/", "https://y.org/", "https://z.a.x.com/"}
	for range rapid.IntRange(0, 2).Draw(t, "nurls") {
		r.URLs = append(r.URLs, rapid.SampledFrom(urls).Draw(t, "url"))
	}
	if rapid.Bool().Draw(t, "cost?") {
		r.Cost = &caveat.Amount{Micros: uint64(rapid.IntRange(0, 2).Draw(t, "rcost")) * 400000, Currency: rapid.SampledFrom([]string{"USD", "EUR"}).Draw(t, "rcur")}
	}
	return r
}

func genKey(t *rapid.T) (*key.Signing, *token.Keyring) {
	mode := rapid.SampledFrom([]key.Alg{key.HMACSHA256, key.Ed25519}).Draw(t, "mode")
	key, err := fixedkey.Signing(mode, "k", "props")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := token.NewKeyring(key.Verifying())
	return key, keys
}

// Property 1: attenuation never widens. Whenever Attenuate accepts a block
// and the child allows a request, the parent allows it too.
func TestPropAttenuationNeverWidens(t *testing.T) {
	hits := 0
	rapid.Check(t, func(t *rapid.T) {
		key, keys := genKey(t)
		parent, err := token.Mint(key, genCaveats(t, "parent"), nil)
		if err != nil {
			t.Skip("parent caveats refused")
		}
		child, err := parent.Attenuate(genCaveats(t, "child"), nil)
		if err != nil {
			t.Skip("child widens: refused up front")
		}
		now := t0.Add(time.Duration(rapid.IntRange(-30, 30).Draw(t, "now")) * time.Minute)
		for range 8 {
			blocks := child.UnverifiedBlocks()
			r := genRequestFor(t, append(append([]caveat.Caveat(nil), blocks[0].Caveats...), blocks[1].Caveats...))
			cd, _ := verify.Verify(child, r, keys, now, nil)
			if !cd.Allowed {
				continue
			}
			pd, _ := verify.Verify(parent, r, keys, now, nil)
			if !pd.Allowed {
				t.Fatalf("child allows %+v but parent refuses: %v", r, pd.Refusals)
			}
			hits++
		}
	})
	t.Logf("%d allowed child requests compared with the parent", hits)
	// A property that never reaches its assertion proves nothing.
	if hits < 20 {
		t.Fatalf("only %d allowed child requests were compared with the parent", hits)
	}
}

// Property 3: Verify is deterministic.
func TestPropVerifyDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key, keys := genKey(t)
		tk, err := token.Mint(key, genCaveats(t, "b0"), nil)
		if err != nil {
			t.Skip()
		}
		r := genRequest(t)
		a, errA := verify.Verify(tk, r, keys, t0, nil)
		parsed, err := token.Parse(tk.String())
		if err != nil {
			t.Fatal(err)
		}
		b, errB := verify.Verify(parsed, r, keys, t0, nil)
		if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) {
			t.Fatalf("two runs differ:\n%+v\n%+v", a, b)
		}
	})
}

// Property 4: flipping any single byte of a valid ticket makes it fail:
// either it no longer decodes, or Verify refuses it at the chain.
func TestPropFlippedByteFails(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key, keys := genKey(t)
		tk, err := token.Mint(key, genCaveats(t, "b0"), nil)
		if err != nil {
			t.Skip()
		}
		if rapid.Bool().Draw(t, "attenuate") {
			if c, err := tk.Attenuate(genCaveats(t, "b1"), nil); err == nil {
				tk = c
			}
		}
		if rapid.Bool().Draw(t, "seal") {
			tk, _ = tk.Seal()
		}
		data := tk.Encode()
		i := rapid.IntRange(0, len(data)-1).Draw(t, "offset")
		data = bytes.Clone(data)
		data[i] ^= byte(rapid.IntRange(1, 255).Draw(t, "xor"))
		bad, err := token.Decode(data)
		if err != nil {
			return
		}
		d, err := verify.Validate(bad, keys, t0, nil)
		if err != nil || d.Allowed || (d.Refusals[0].Check != verify.CheckChain && d.Refusals[0].Check != verify.CheckKey && d.Refusals[0].Check != verify.CheckMode) {
			t.Fatalf("flipped byte %d: decision %+v err %v", i, d, err)
		}
	})
}

// genRequestFor draws a request that, most of the time, lies inside the
// given caveats (and sometimes just outside), so that the properties reach
// their assertions.
func genRequestFor(t *rapid.T, cs []caveat.Caveat) *caveat.Request {
	r := genRequest(t)
	inside := func(name string) bool { return rapid.IntRange(0, 9).Draw(t, name) < 8 }
	for _, c := range cs {
		switch c.Kind {
		case caveat.Tools:
			if inside("in tools") {
				r.Tool = rapid.SampledFrom(c.List).Draw(t, "tool in")
				if !strings.Contains(r.Tool, "/") && rapid.Bool().Draw(t, "qualify") {
					r.Tool = "s/" + r.Tool
				}
			}
		case caveat.Ops:
			if inside("in ops") {
				r.Op = rapid.SampledFrom(c.List).Draw(t, "op in")
			}
		case caveat.Audience:
			if inside("in aud") {
				r.Audience = rapid.SampledFrom(c.List).Draw(t, "aud in")
			}
		case caveat.Paths:
			if inside("in paths") {
				p := rapid.SampledFrom(c.List).Draw(t, "path in") + rapid.SampledFrom([]string{"x", "a/y", "", "b"}).Draw(t, "suffix")
				if p == "" {
					p = "/"
				}
				r.Paths = []string{p}
			}
		case caveat.Hosts:
			if inside("in hosts") {
				h := strings.Replace(rapid.SampledFrom(c.List).Draw(t, "host in"), "*.", rapid.SampledFrom([]string{"z.", "a.", "q.r."}).Draw(t, "label")+"", 1)
				r.URLs = []string{"https://" + h + rapid.SampledFrom([]string{"/", ":443/p", "./x"}).Draw(t, "rest")}
			}
		case caveat.Cost:
			if inside("in cost") {
				r.Cost = &caveat.Amount{Micros: c.Amount.Micros / uint64(rapid.IntRange(1, 2).Draw(t, "div")), Currency: c.Amount.Currency}
			}
		}
	}
	return r
}

// genApprovals may append an approval caveat to tk (an Ed25519 approver,
// with or without a location) and draws the request's discharges: the
// right one with random caveats, one signed by another key, one bound to
// nothing, one with a flipped text byte — so that the equivalence
// properties reach every branch of step 6a.
func genApprovals(t *rapid.T, tk *token.Ticket) (*token.Ticket, []string) {
	lead, lead2, other := approvers(t)
	// rapid draws the ends of a range more often: they mean "no change".
	which := rapid.IntRange(0, 6).Draw(t, "approval?")
	if which != 2 && which != 3 { // most draws: no approval, no discharge
		return tk, nil
	}
	approved := which == 2
	if approved {
		signer := rapid.SampledFrom([]*key.Signing{lead, lead, other}).Draw(t, "approver")
		loc := rapid.SampledFrom([]string{"", "room 4"}).Draw(t, "location")
		if a, err := tk.Attenuate([]caveat.Caveat{approval(t, signer, byte(rapid.IntRange(0, 2).Draw(t, "nonce")), loc)}, nil); err == nil {
			tk = a
		}
	}
	var bind [32]byte
	if b, err := tk.Binding(tk.Len() - 1); err == nil {
		bind = b
	}
	var out []string
	n := 1 // an unneeded discharge, or the approval's
	if approved {
		n = 1
		if rapid.IntRange(0, 5).Draw(t, "second discharge?") == 2 {
			n = 2
		}
	}
	for k := range n {
		signer := lead
		if k > 0 || rapid.IntRange(0, 5).Draw(t, "other signer?") == 2 {
			signer = rapid.SampledFrom([]*key.Signing{lead, lead2, other}).Draw(t, "signer")
		}
		b := bind
		if rapid.IntRange(0, 7).Draw(t, "unbound?") == 3 {
			b[0] ^= 1
		}
		var cs []caveat.Caveat
		if rapid.IntRange(0, 5).Draw(t, "d caveats?") == 2 {
			cs = genCaveats(t, "discharge")
		}
		if !slices.ContainsFunc(cs, func(c caveat.Caveat) bool { return c.Kind == caveat.Until }) {
			h := rapid.SampledFrom([]int{2, 2, -2, 2, 2, 25, 2, 2}).Draw(t, "d until")
			cs = append(cs, must(caveat.NewUntil(t0.Add(time.Duration(h)*time.Hour))))
		}
		if rapid.Bool().Draw(t, "d calls?") {
			cs = append(cs, must(caveat.NewCalls(1)))
		}
		d, err := token.Approve(signer, b, cs, fixedkey.ApprovedAt(cs))
		if err != nil {
			t.Fatal(err)
		}
		s := d.String()
		if rapid.IntRange(0, 19).Draw(t, "d flip?") == 7 {
			i := rapid.IntRange(len(token.DischargePrefix), len(s)-1).Draw(t, "d at")
			s = s[:i] + "A" + s[i+1:]
		}
		out = append(out, s)
	}
	return tk, out
}
