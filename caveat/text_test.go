package caveat_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

func TestParsePrint(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"tools=b,a", "tools=a,b"},
		{"tools=a,a,b,a", "tools=a,b"},
		{"tools=read_file,workspace/write_file", ""},
		{"tools=A.b-c_9,srv/x", ""},
		{"tools=" + strings.Repeat("s", 128) + "/" + strings.Repeat("n", 128), ""},
		{"ops=invoke,delegate", "ops=delegate,invoke"},
		{"ops=a" + strings.Repeat("z", 63), ""},
		{"paths=src/discount", "paths=src/discount/"},
		{"paths=src/discount/", ""},
		{"paths=/", ""},
		{"paths=/srv/app,src/", "paths=/srv/app/,src/"},
		{"paths=my docs/x", "paths=my docs/x/"},
		{"paths=a=b/c", "paths=a=b/c/"},
		{"paths=données/", ""},
		{"hosts=API.Example.COM", "hosts=api.example.com"},
		{"hosts=api.example.com,*.example.org", "hosts=*.example.org,api.example.com"},
		{"hosts=*.EXAMPLE.org,*.example.org", "hosts=*.example.org"},
		{"hosts=xn--bcher-kva.example", ""},
		{"hosts=10.0.0.1,localhost", ""},
		{"hosts=*.a.b", ""},
		{"aud=workspace", ""},
		{"aud=https://api.example.com/v1,a.b:c-d_e", "aud=a.b:c-d_e,https://api.example.com/v1"},
		{"calls=5", ""},
		{"calls=1", ""},
		{"calls=18446744073709551615", ""},
		{"depth=0", ""},
		{"depth=2", ""},
		{"cost=0.50USD", "cost=0.5USD"},
		{"cost=0USD", ""},
		{"total=5USD", ""},
		{"until=10m", "until=2026-11-30T03:20:00Z"},
		{"until=1h30m", "until=2026-11-30T04:40:00Z"},
		{"until=2026-11-30T04:20:00+01:00", "until=2026-11-30T03:20:00Z"},
		{"until=2026-11-30T03:20:00Z", ""},
		{"until=1796008800", "until=2026-11-30T03:20:00Z"},
		{"until=0", "until=1970-01-01T00:00:00Z"},
		{"until=253402300799", "until=9999-12-31T23:59:59Z"},
		{"nbf=10m", "nbf=2026-11-30T03:20:00Z"},
		{"nbf=2026-01-01T00:00:00Z", ""},
		{`intent="upgrade pricing deps"`, ""},
		{"intent=upgrade pricing deps", `intent="upgrade pricing deps"`},
		{`intent="say \"hi\" \\ ok"`, ""},
		{`intent=a "quoted" word`, `intent="a \"quoted\" word"`},
		{"intent=naïve café", `intent="naïve café"`},
		{`intent="\u00e9"`, `intent="é"`},
		{"holder=" + jkt, ""},
	} {
		want := tc.out
		if want == "" {
			want = tc.in
		}
		c := mustParse(t, tc.in)
		if got := c.String(); got != want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, want)
		}
		d, err := caveat.Parse(c.String(), now.Add(time.Hour))
		if err != nil || !d.Equal(c) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.String(), d, err, c)
		}
	}
}

func TestParseRefused(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, in := range []string{
		"", "tools", "=a", "TOOLS=a", "kind(42)=01", "foo=bar", "tools =a",
		"tools=", "tools=a,,b", "tools=a,", "tools=,a", "tools=a b", "tools= a", "tools=a ",
		"tools=a/b/c", "tools=/a", "tools=a/", "tools=a:b", "tools=é", "tools=" + long(129),
		"tools=a/" + long(129),
		"ops=Invoke", "ops=1x", "ops=-x", "ops=_x", "ops=a.b", "ops=" + long(65),
		"paths=src/../x", "paths=..", "paths=./src", "paths=src/.", "paths=src//x", "paths=//",
		"paths=src\\x", "paths=src/\x00/", "paths=a\tb", "paths=a\nb", "paths=\u202egnp.exe",
		"paths=a\u00a0b", "paths=\xff", "paths=src/ x", "paths= src", "paths=src /x", "paths=a, b",
		"paths=" + long(1024),
		"hosts=*", "hosts=*.", "hosts=*.com", "hosts=*.localhost", "hosts=a.*.com", "hosts=**.a.com",
		"hosts=*a.com", "hosts=example.com.", "hosts=.example.com", "hosts=-a.com", "hosts=a-.com",
		"hosts=a..com", "hosts=a_b.com", "hosts=bücher.example", "hosts=\u212aelvin.com",
		"hosts=*.1.2.3", "hosts=*.example.123", "hosts=example.com:443", "hosts=[::1]",
		"hosts=" + long(64) + ".com", "hosts=" + strings.Repeat("a.", 126) + "aa",
		"aud=a b", "aud=" + long(129), "aud=a,b c", "aud=é",
		"calls=0", "calls=-1", "calls=01", "calls=1.5", "calls=+1", "calls= 1", "calls=1e3",
		"calls=18446744073709551616", "depth=-1", "depth=x", "depth=00",
		"cost=1", "cost=usd", "cost=1usd", "cost=-1USD", "cost=1e3USD", "cost=1.USD", "cost=.5USD",
		"cost=0.0000001USD", "cost=1 USD", "cost=18446744073709.551616USD", "total=1,5USD",
		"until=-10m", "until=0s", "until=0m", "until=-1", "until=01", "until=tomorrow",
		"until=2026-11-30T03:20:00.5Z", "until=2026-11-30T03:20:00.000Z", "until=1969-12-31T23:59:59Z",
		"until=253402300800", "until=2026-11-30 03:20:00Z", "until=2026-11-30", "nbf=-1h",
		"intent=", `intent=""`, `intent="unterminated`, `intent="a"b`, "intent=a\nb", "intent=a\tb",
		`intent="\x00"`, `intent="a\nb"`, `intent="\xff"`, "intent=\u202e", "intent=" + long(1025),
		"holder=abc", "holder=" + jkt + "A", "holder=" + jkt + "=", "holder=" + jkt[:42] + "9",
		"holder=" + strings.ReplaceAll(jkt, "A", "+"),
	} {
		_, err := caveat.Parse(in, now)
		wantErr(t, "Parse("+in+")", err, caveat.ErrSyntax)
	}
}

func TestParseBounds(t *testing.T) {
	names := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = "t" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/182)
		}
		return strings.Join(s, ",")
	}
	if _, err := caveat.Parse("tools="+names(1024), now); err != nil {
		t.Errorf("1024 entries: %v", err)
	}
	_, err := caveat.Parse("tools="+names(1025), now)
	wantErr(t, "1025 entries", err, caveat.ErrSyntax)

	// Relative times against a clock between seconds: until never later,
	// nbf never earlier than asked.
	half := now.Add(700 * time.Millisecond)
	if c, _ := caveat.Parse("until=10m", half); c.Time != now.Add(10*time.Minute).Unix() {
		t.Errorf("until=10m at %v: %d", half, c.Time)
	}
	if c, _ := caveat.Parse("nbf=10m", half); c.Time != now.Add(10*time.Minute).Unix()+1 {
		t.Errorf("nbf=10m at %v: %d", half, c.Time)
	}
	_, err = caveat.Parse("until=24h", time.Date(9999, 12, 31, 0, 0, 1, 0, time.UTC))
	wantErr(t, "until past 9999", err, caveat.ErrSyntax)
	// The one intent that hits the byte limit exactly.
	if _, err := caveat.Parse("intent="+strings.Repeat("é", 512), now); err != nil {
		t.Errorf("1024-byte intent: %v", err)
	}
}

func TestParseAll(t *testing.T) {
	cs, err := caveat.ParseAll([]string{"until=10m", "tools=b,a", "intent=x"}, now)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.String())
	}
	want := []string{"tools=a,b", "until=2026-11-30T03:20:00Z", `intent="x"`}
	if !slices.Equal(got, want) {
		t.Errorf("ParseAll = %q, want %q", got, want)
	}
	_, err = caveat.ParseAll([]string{"tools=a", "tools=b"}, now)
	wantErr(t, "duplicate kind", err, caveat.ErrSyntax)
	_, err = caveat.ParseAll([]string{"tools=a", "bogus=1"}, now)
	wantErr(t, "bad argument", err, caveat.ErrSyntax)
	if cs, err := caveat.ParseAll(nil, now); err != nil || len(cs) != 0 {
		t.Errorf("ParseAll(nil) = %v, %v", cs, err)
	}
}

func TestConstructors(t *testing.T) {
	in := []string{"b", "a"}
	c, err := caveat.NewTools(in...)
	if err != nil || c.String() != "tools=a,b" || in[0] != "b" {
		t.Errorf("NewTools(b, a) = %v, %v; input now %q", c, err, in)
	}
	for name, f := range map[string]func() (caveat.Caveat, error){
		"NewTools()":         func() (caveat.Caveat, error) { return caveat.NewTools() },
		"NewPaths(\"\")":     func() (caveat.Caveat, error) { return caveat.NewPaths("") }, // never "/"
		"NewHosts(Kelvin)":   func() (caveat.Caveat, error) { return caveat.NewHosts("\u212a.example.com") },
		"NewCalls(0)":        func() (caveat.Caveat, error) { return caveat.NewCalls(0) },
		"NewUntil(zero)":     func() (caveat.Caveat, error) { return caveat.NewUntil(time.Time{}) },
		"NewUntil(10000)":    func() (caveat.Caveat, error) { return caveat.NewUntil(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)) },
		"NewNotBefore(1969)": func() (caveat.Caveat, error) { return caveat.NewNotBefore(time.Unix(-1, 0)) },
		"NewCost(usd)":       func() (caveat.Caveat, error) { return caveat.NewCost(caveat.Amount{Micros: 1, Currency: "usd"}) },
		"NewTotal(none)":     func() (caveat.Caveat, error) { return caveat.NewTotal(caveat.Amount{Micros: 1}) },
		"NewIntent(\"\")":    func() (caveat.Caveat, error) { return caveat.NewIntent("") },
		"NewHolder(short)":   func() (caveat.Caveat, error) { return caveat.NewHolder("AAEC") },
	} {
		_, err := f()
		wantErr(t, name, err, caveat.ErrSyntax)
	}
	for _, tc := range []struct {
		got  func() (caveat.Caveat, error)
		want string
	}{
		{func() (caveat.Caveat, error) { return caveat.NewPaths("/srv/app", "src/") }, "paths=/srv/app/,src/"},
		{func() (caveat.Caveat, error) { return caveat.NewHosts("API.example.com") }, "hosts=api.example.com"},
		{func() (caveat.Caveat, error) { return caveat.NewOps("invoke") }, "ops=invoke"},
		{func() (caveat.Caveat, error) { return caveat.NewAudience("workspace") }, "aud=workspace"},
		{func() (caveat.Caveat, error) { return caveat.NewCalls(5) }, "calls=5"},
		{func() (caveat.Caveat, error) { return caveat.NewDepth(0) }, "depth=0"},
		{func() (caveat.Caveat, error) { return caveat.NewUntil(now.Add(599999 * time.Millisecond)) }, "until=2026-11-30T03:19:59Z"},
		{func() (caveat.Caveat, error) { return caveat.NewNotBefore(now.Add(599001 * time.Millisecond)) }, "nbf=2026-11-30T03:20:00Z"},
		{func() (caveat.Caveat, error) { return caveat.NewCost(*amount(t, "0.5USD")) }, "cost=0.5USD"},
		{func() (caveat.Caveat, error) { return caveat.NewTotal(*amount(t, "5USD")) }, "total=5USD"},
		{func() (caveat.Caveat, error) { return caveat.NewIntent("why") }, `intent="why"`},
		{func() (caveat.Caveat, error) { return caveat.NewHolder(jkt) }, "holder=" + jkt},
	} {
		c, err := tc.got()
		if err != nil || c.String() != tc.want {
			t.Errorf("got %q, %v; want %q", c.String(), err, tc.want)
		}
	}
}

func TestUnknownKindText(t *testing.T) {
	c := caveat.Caveat{Kind: 42, Raw: []byte{0x82, 0x01, 0x02}}
	if got := c.String(); got != "kind(42)=820102" {
		t.Errorf("String() = %q", got)
	}
	_, err := caveat.Parse(c.String(), now)
	wantErr(t, "Parse(unknown kind)", err, caveat.ErrSyntax)
}
