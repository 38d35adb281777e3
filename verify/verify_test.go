package verify_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

type fixture struct {
	name   string
	key    *key.Signing
	keys   *token.Keyring
	parent *token.Ticket // block 0 only
	child  *token.Ticket // parent + one narrower block
}

func fixtures(t testing.TB) []fixture {
	t.Helper()
	var out []fixture
	for _, m := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		key, err := fixedkey.Signing(m, "root-"+m.String(), "verify "+m.String())
		if err != nil {
			t.Fatal(err)
		}
		keys, err := token.NewKeyring(key.Verifying())
		if err != nil {
			t.Fatal(err)
		}
		parent, err := token.Mint(key, parse(t,
			"tools=read_file,write_file", "ops=delegate,invoke", "paths=src/", "hosts=*.example.org",
			"until=2026-11-30T13:00:00Z", "calls=10", "intent=upgrade pricing deps"), nil)
		if err != nil {
			t.Fatal(err)
		}
		child, err := parent.Attenuate(parse(t, "tools=read_file", "paths=src/discount/", "calls=3"), nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fixture{m.String(), key, keys, parent, child})
	}
	return out
}

func parse(t testing.TB, texts ...string) []caveat.Caveat {
	t.Helper()
	cs, err := caveat.ParseAll(texts, t0)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func req(tool, path, url string) *caveat.Request {
	r := &caveat.Request{Tool: tool, Op: "invoke"}
	if path != "" {
		r.Paths = []string{path}
	}
	if url != "" {
		r.URLs = []string{url}
	}
	return r
}

func TestVerifyTable(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			cases := []struct {
				name    string
				tk      *token.Ticket
				r       *caveat.Request
				now     time.Time
				allowed bool
				refusal string // substring of the first refusal's String()
			}{
				{"allowed", f.child, req("read_file", "src/discount/a.go", "https://api.example.org/x"), t0, true, ""},
				{"prefix equal to the path", f.child, req("read_file", "src/discount", "https://api.example.org/"), t0, true, ""},
				{"sibling prefix", f.child, req("read_file", "src/discount-other/a.go", "https://api.example.org/"), t0, false, "block 1 caveat paths"},
				{"dot-dot", f.child, req("read_file", "src/discount/../refund/a.go", "https://api.example.org/"), t0, false, "caveat paths: path src/discount/../refund/a.go has a .. segment"},
				{"tool dropped by child", f.child, req("write_file", "src/discount/a.go", "https://api.example.org/"), t0, false, "block 1 caveat tools"},
				{"parent allows write", f.parent, req("write_file", "src/discount/a.go", "https://api.example.org/"), t0, true, ""},
				{"no path", f.child, req("read_file", "", "https://api.example.org/"), t0, false, "caveat paths"},
				{"userinfo host trick", f.child, req("read_file", "src/discount/a", "https://a.example.org@evil.com/"), t0, false, "caveat hosts"},
				{"until exactly now", f.child, req("read_file", "src/discount/a", "https://a.example.org/"), time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC), false, "block 0 caveat until"},
				{"one second before until", f.child, req("read_file", "src/discount/a", "https://a.example.org/"), time.Date(2026, 11, 30, 12, 59, 59, 0, time.UTC), true, ""},
			}
			for _, c := range cases {
				d, err := verify.Verify(c.tk, c.r, f.keys, c.now, nil)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if d.Allowed != c.allowed {
					t.Errorf("%s: allowed=%v refusals=%v", c.name, d.Allowed, d.Refusals)
					continue
				}
				if !c.allowed && !strings.Contains(d.Refusals[0].String(), c.refusal) {
					t.Errorf("%s: refusal %q, want it to contain %q", c.name, d.Refusals[0], c.refusal)
				}
				if !c.allowed && !errors.Is(d.Err(), verify.ErrRefused) {
					t.Errorf("%s: Err() = %v", c.name, d.Err())
				}
			}
		})
	}
}

// TestAllRefusalsReported: when several caveats fail, every one is named.
func TestAllRefusalsReported(t *testing.T) {
	f := fixtures(t)[0]
	d, err := verify.Verify(f.child, req("delete_file", "etc/passwd", ""), f.keys, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range d.Refusals {
		got[r.String()[:strings.Index(r.String(), ":")]] = true
	}
	for _, want := range []string{"block 0 caveat tools", "block 0 caveat paths", "block 0 caveat hosts", "block 1 caveat tools", "block 1 caveat paths"} {
		if !got[want] {
			t.Errorf("missing refusal %q in %v", want, d.Refusals)
		}
	}
}

func TestBudgetsAndIDs(t *testing.T) {
	for _, f := range fixtures(t) {
		d, err := verify.Verify(f.child, req("read_file", "src/discount/a", "https://a.example.org/"), f.keys, t0, nil)
		if err != nil || !d.Allowed {
			t.Fatalf("%s: %v %v", f.name, err, d.Refusals)
		}
		if len(d.Budgets) != 2 || d.Budgets[0].Calls != 10 || d.Budgets[1].Calls != 3 ||
			d.Budgets[0].Key != d.BlockIDs[0] || d.Budgets[1].Key != d.BlockIDs[1] {
			t.Errorf("%s: budgets %+v", f.name, d.Budgets)
		}
		if d.Intent != "upgrade pricing deps" || d.TicketID() != d.BlockIDs[1] {
			t.Errorf("%s: intent %q", f.name, d.Intent)
		}
		// The parent's block 0 id is the child's block 0 id: budgets set in
		// block 0 are shared by the family.
		pd, _ := verify.Verify(f.parent, req("read_file", "src/a", "https://a.example.org/"), f.keys, t0, nil)
		if pd.BlockIDs[0] != d.BlockIDs[0] {
			t.Errorf("%s: family block ids differ", f.name)
		}
	}
}

func TestRevocation(t *testing.T) {
	for _, f := range fixtures(t) {
		r := req("read_file", "src/discount/a", "https://a.example.org/")
		d, _ := verify.Verify(f.child, r, f.keys, t0, nil)
		// Revoking the child's block refuses the child but not the parent;
		// revoking block 0 refuses both.
		opts := &verify.Options{Revoked: verify.RevokedSet{d.BlockIDs[1]: {}}}
		if d, _ := verify.Verify(f.child, r, f.keys, t0, opts); d.Allowed || d.Refusals[0].Check != verify.CheckRevoked || d.Refusals[0].Block != 1 {
			t.Errorf("%s: revoked child: %+v", f.name, d.Refusals)
		}
		if d, _ := verify.Verify(f.parent, r, f.keys, t0, opts); !d.Allowed {
			t.Errorf("%s: parent refused after child revoked: %+v", f.name, d.Refusals)
		}
		opts = &verify.Options{Revoked: verify.RevokedSet{d.BlockIDs[0]: {}}}
		if d, _ := verify.Verify(f.child, r, f.keys, t0, opts); d.Allowed {
			t.Errorf("%s: child allowed after block 0 revoked", f.name)
		}
	}
}

func TestPolicy(t *testing.T) {
	f := fixtures(t)[1]
	r := req("read_file", "src/discount/a", "https://a.example.org/")
	cases := []struct {
		opts    verify.Options
		allowed bool
	}{
		{verify.Options{RequireExpiry: true}, true},
		{verify.Options{MaxLifetime: time.Hour}, true},
		{verify.Options{MaxLifetime: time.Hour - time.Second}, false},
		{verify.Options{Modes: []key.Alg{key.HMACSHA256}}, false},
		{verify.Options{Modes: []key.Alg{key.Ed25519}}, true},
	}
	for _, c := range cases {
		d, _ := verify.Verify(f.child, r, f.keys, t0, &c.opts)
		if d.Allowed != c.allowed {
			t.Errorf("%+v: allowed=%v %v", c.opts, d.Allowed, d.Refusals)
		}
	}
	noExp, _ := token.Mint(f.key, parse(t, "tools=read_file"), nil)
	if d, _ := verify.Verify(noExp, &caveat.Request{Tool: "read_file"}, f.keys, t0, &verify.Options{RequireExpiry: true}); d.Allowed || d.Refusals[0].Check != verify.CheckPolicy {
		t.Errorf("ticket without expiry: %+v", d.Refusals)
	}
}

func TestUnknownKeyAndWrongMode(t *testing.T) {
	fs := fixtures(t)
	d, _ := verify.Verify(fs[0].child, req("read_file", "src/discount/a", ""), fs[1].keys, t0, nil)
	if d.Allowed || d.Refusals[0].Check != verify.CheckKey {
		t.Errorf("unknown key: %+v", d.Refusals)
	}
	// Same key id, other mode.
	pub, _ := key.NewEd25519Public(fs[0].key.ID(), fixedkey.Public(fs[1].key.Verifying()))
	keys, _ := token.NewKeyring(pub)
	d, _ = verify.Verify(fs[0].child, req("read_file", "src/discount/a", ""), keys, t0, nil)
	if d.Allowed || d.Refusals[0].Check != verify.CheckMode {
		t.Errorf("wrong mode: %+v", d.Refusals)
	}
}

func TestValidate(t *testing.T) {
	for _, f := range fixtures(t) {
		if d, err := verify.Validate(f.child, f.keys, t0, nil); err != nil || !d.Allowed {
			t.Errorf("%s: %v %v", f.name, err, d.Refusals)
		}
		late := time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC)
		if d, _ := verify.Validate(f.child, f.keys, late, nil); d.Allowed {
			t.Errorf("%s: expired ticket validated", f.name)
		}
	}
}

func TestMalformedCall(t *testing.T) {
	f := fixtures(t)[0]
	if _, err := verify.Verify(nil, &caveat.Request{}, f.keys, t0, nil); err == nil {
		t.Error("nil ticket accepted")
	}
	if _, err := verify.Verify(f.child, nil, f.keys, t0, nil); err == nil {
		t.Error("nil request accepted")
	}
	if _, err := verify.Verify(f.child, &caveat.Request{}, nil, t0, nil); err == nil {
		t.Error("nil keyring accepted")
	}
}
