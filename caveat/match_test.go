package caveat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

func TestCheck(t *testing.T) {
	type req = caveat.Request
	usd := func(s string) *caveat.Amount { return amount(t, s) }
	for _, tc := range []struct {
		caveat string
		r      req
		refuse string // "" = allowed; else a substring of the reason
	}{
		{"tools=read_file", req{Tool: "read_file"}, ""},
		{"tools=read_file", req{Tool: "workspace/read_file"}, ""},
		{"tools=read_file", req{Tool: "read_files"}, "tool read_files is not in tools=read_file"},
		{"tools=read_file", req{Tool: "Read_file"}, "not in"},
		{"tools=workspace/write_file", req{Tool: "workspace/write_file"}, ""},
		{"tools=workspace/write_file", req{Tool: "write_file"}, "not in"},
		{"tools=workspace/write_file", req{Tool: "other/write_file"}, "not in"},
		{"tools=read_file,write_file", req{Tool: "delete_file"}, "tool delete_file is not in tools=read_file,write_file"},
		{"tools=read_file", req{}, "request names no tool"},
		{"tools=read_file", req{Tool: "a/b/read_file"}, "not a valid tool name"},
		{"tools=read_file", req{Tool: "/read_file"}, "not a valid tool name"},
		{"tools=read_file", req{Tool: "x\x1b[31m"}, `tool "x\x1b[31m" is not a valid`},
		{"ops=invoke,delegate", req{Op: "invoke"}, ""},
		{"ops=invoke", req{Op: "write"}, "op write is not in ops=invoke"},
		{"ops=invoke", req{}, "request names no op"},
		{"aud=workspace", req{Audience: "workspace"}, ""},
		{"aud=workspace", req{Audience: "Workspace"}, "audience Workspace is not in aud=workspace"},
		{"aud=workspace", req{}, "no audience"},

		{"paths=src/discount/", req{Paths: []string{"src/discount"}}, ""},
		{"paths=src/discount/", req{Paths: []string{"src/discount/"}}, ""},
		{"paths=src/discount/", req{Paths: []string{"src/discount/x/y"}}, ""},
		{"paths=src/discount/", req{Paths: []string{"src/discount-other/x"}}, "src/discount-other/x is not under src/discount/"},
		{"paths=src/discount/", req{Paths: []string{"src/discoun"}}, "not under"},
		{"paths=src/discount/", req{Paths: []string{"src"}}, "not under"},
		{"paths=ab/", req{Paths: []string{"a"}}, "not under"},
		{"paths=src/discount/", req{Paths: []string{"src/refund/x"}}, "src/refund/x is not under src/discount/"},
		{"paths=src/discount/", req{Paths: []string{"src/discount/x", "src/refund/x"}}, "src/refund/x is not under"},
		{"paths=src/discount/", req{Paths: []string{"src/discount/../refund"}}, `has a .. segment`},
		{"paths=src/", req{Paths: []string{"src/./x"}}, "has a . segment"},
		{"paths=src/", req{Paths: []string{"src//x"}}, "empty segment"},
		{"paths=src/", req{Paths: []string{"src/x//"}}, "empty segment"},
		{"paths=src/", req{Paths: []string{"src\\x"}}, "backslash"},
		{"paths=src/", req{Paths: []string{"src/x\x00.txt"}}, "NUL"},
		{"paths=src/", req{Paths: []string{"src/x\n"}}, "control"},
		{"paths=src/", req{Paths: []string{"src/\u202ex"}}, "non-printing"},
		{"paths=src/", req{Paths: []string{"src/\xff"}}, "UTF-8"},
		{"paths=src/", req{Paths: []string{""}}, "is empty"},
		{"paths=src/", req{Paths: []string{"SRC/x"}}, "not under"},
		{"paths=src/", req{Paths: []string{"src/a,b.txt"}}, ""},
		{"paths=src/", req{}, "request has no path"},
		{"paths=src/", req{Paths: []string{"/src/x"}}, "not under"},
		{"paths=/srv/app/", req{Paths: []string{"srv/app/x"}}, "not under"},
		{"paths=/srv/app/", req{Paths: []string{"/srv/app/x"}}, ""},
		{"paths=/", req{Paths: []string{"/etc/passwd"}}, ""},
		{"paths=/", req{Paths: []string{"/"}}, ""},
		{"paths=/", req{Paths: []string{"etc/passwd"}}, "not under"},
		{"paths=/", req{Paths: []string{"//etc"}}, "empty segment"},
		{"paths=a/,b/", req{Paths: []string{"c/x"}}, "c/x is not under any of paths=a/,b/"},

		{"hosts=api.example.com", req{URLs: []string{"https://api.example.com/v1?q=1"}}, ""},
		{"hosts=api.example.com", req{URLs: []string{"https://API.Example.COM/"}}, ""},
		{"hosts=api.example.com", req{URLs: []string{"https://api.example.com./"}}, ""},
		{"hosts=api.example.com", req{URLs: []string{"https://api.example.com:8443/"}}, ""},
		{"hosts=api.example.com", req{URLs: []string{"https://api.example.com:65535/"}}, ""},
		{"hosts=api.example.com", req{URLs: []string{"https://api.example.com:65536/"}}, "port outside"},
		{"hosts=api.example.com", req{URLs: []string{"https://api.example.com:099999/"}}, "port outside"},
		{"hosts=api.example.com", req{URLs: []string{"https://b%C3%BCcher.example/"}}, "percent-encoded"},
		{"hosts=api.example.com", req{URLs: []string{"https://a%25b.example.com/"}}, "percent-encoded"},
		{"hosts=api.example.com", req{URLs: []string{"https://api%2Eexample.com/"}}, "url"},
		{"hosts=api.example.com", req{URLs: []string{"https://api.example.com../"}}, "empty label"},
		{"hosts=a.example.com", req{URLs: []string{"https://a.example.com@evil.com/"}}, "host evil.com is not in hosts=a.example.com"},
		{"hosts=a.example.com", req{URLs: []string{"https://evil.com\\@a.example.com/"}}, "url"},
		{"hosts=a.example.com", req{URLs: []string{"https://a.example.com\\.evil.com/"}}, "url"},
		{"hosts=a.example.com", req{URLs: []string{"https://a.example.com%2f.evil.com/"}}, "url"},
		{"hosts=*.example.org", req{URLs: []string{"https://a.example.org/"}}, ""},
		{"hosts=*.example.org", req{URLs: []string{"https://x.y.example.org/"}}, ""},
		{"hosts=*.example.org", req{URLs: []string{"https://example.org/"}}, "host example.org is not in hosts=*.example.org"},
		{"hosts=*.example.org", req{URLs: []string{"https://badexample.org/"}}, "not in"},
		{"hosts=*.example.org", req{URLs: []string{"https://a.example.org.evil.com/"}}, "not in"},
		{"hosts=*.example.org", req{URLs: []string{"https://a.example.org/", "https://evil.com/"}}, "host evil.com"},
		{"hosts=xn--bcher-kva.example", req{URLs: []string{"https://bücher.example/"}}, "non-ASCII"},
		{"hosts=xn--bcher-kva.example", req{URLs: []string{"https://xn--bcher-kva.example/"}}, ""},
		{"hosts=kelvin.example", req{URLs: []string{"https://\u212aelvin.example/"}}, "non-ASCII"},
		{"hosts=kelvin.example", req{URLs: []string{"https://%E2%84%AAelvin.example/"}}, "percent-encoded"},
		{"hosts=10.0.0.1", req{URLs: []string{"http://10.0.0.1:80/"}}, ""},
		{"hosts=*.example.org", req{URLs: []string{"http://[::1]/"}}, "IPv6"},
		{"hosts=*.example.org", req{URLs: []string{"http://[fe80::1%25en0]/"}}, "IPv6"},
		{"hosts=a.example.org", req{URLs: []string{"//a.example.org/x"}}, "absolute"},
		{"hosts=a.example.org", req{URLs: []string{"a.example.org"}}, "absolute"},
		{"hosts=a.example.org", req{URLs: []string{"https:a.example.org"}}, "absolute"},
		{"hosts=a.example.org", req{URLs: []string{"file:///etc/passwd"}}, "absolute"},
		{"hosts=a.example.org", req{URLs: []string{"https://a.example.org\x00/"}}, "url"},
		{"hosts=a.example.org", req{URLs: []string{"https://a_b.example.org/"}}, "not in"},
		{"hosts=a.example.org", req{}, "request has no url"},

		{"cost=0.50USD", req{Cost: usd("0.5USD")}, ""},
		{"cost=0.50USD", req{Cost: usd("0USD")}, ""},
		{"cost=0.50USD", req{Cost: usd("0.500001USD")}, "cost 0.500001USD is above 0.5USD"},
		{"cost=0.50USD", req{Cost: usd("0.5EUR")}, "cost 0.5EUR is not in USD"},
		{"cost=0.50USD", req{}, "request states no cost"},
		{"total=5USD", req{Cost: usd("9USD")}, ""},
		{"total=5USD", req{Cost: usd("1EUR")}, "not in USD"},
		{"total=5USD", req{}, "no cost"},
		{"calls=1", req{}, ""},
		{"depth=0", req{}, ""},
		{"intent=x", req{}, ""},
		{"holder=" + jkt, req{}, ""},
	} {
		c := mustParse(t, tc.caveat)
		r := tc.r
		err := c.Evaluate(&r, now, 0)
		if tc.refuse == "" {
			if err != nil {
				t.Errorf("%s %+v: %v", tc.caveat, tc.r, err)
			}
			continue
		}
		ce := wantErr(t, tc.caveat, err, caveat.ErrRefused)
		if ce.Kind != c.Kind || !strings.Contains(ce.Reason, tc.refuse) {
			t.Errorf("%s %+v: %v (kind %v), want reason containing %q", tc.caveat, tc.r, err, ce.Kind, tc.refuse)
		}
	}
}

func TestCheckTime(t *testing.T) {
	until := mustParse(t, "until=2026-11-30T03:20:00Z")
	nbf := mustParse(t, "nbf=2026-11-30T03:20:00Z")
	at := time.Date(2026, 11, 30, 3, 20, 0, 0, time.UTC)
	for _, tc := range []struct {
		c        caveat.Caveat
		now      time.Time
		skew     time.Duration
		ok       bool
		contains string
	}{
		{until, at, 0, false, "expired at 2026-11-30T03:20:00Z"},
		{until, at.Add(999 * time.Millisecond), 0, false, "expired"},
		{until, at.Add(-time.Second), 0, true, ""},
		{until, at.Add(-time.Nanosecond), 0, true, ""},
		{until, at, time.Second, true, ""},
		{until, at.Add(29 * time.Second), 30 * time.Second, true, ""},
		{until, at.Add(30 * time.Second), 30 * time.Second, false, "expired"},
		{until, at, 999 * time.Millisecond, false, "expired"}, // skew counts in whole seconds
		{until, at.Add(-time.Second), -time.Hour, true, ""},   // negative skew is zero
		{until, at, -time.Hour, false, "expired"},
		{nbf, at, 0, true, ""},
		{nbf, at.Add(-time.Second), 0, false, "not valid before 2026-11-30T03:20:00Z"},
		{nbf, at.Add(-time.Nanosecond), 0, false, "not valid before"},
		{nbf, at.Add(-30 * time.Second), 30 * time.Second, true, ""},
		{nbf, at.Add(-31 * time.Second), 30 * time.Second, false, "not valid before"},
		{nbf, time.Unix(1<<62, 0), 1<<63 - 1, true, ""}, // saturates, no wrap
		{mustParse(t, "until=9999-12-31T23:59:59Z"), at, 1<<63 - 1, true, ""},
		{mustParse(t, "until=9999-12-31T23:59:59Z"), time.Unix(1<<62, 0), 1<<63 - 1, false, "expired"},
		{mustParse(t, "until=0"), time.Unix(-100, 0), 0, true, ""},
	} {
		err := tc.c.Evaluate(&caveat.Request{}, tc.now, tc.skew)
		if tc.ok != (err == nil) {
			t.Errorf("%s at %v skew %v: %v", tc.c, tc.now, tc.skew, err)
			continue
		}
		if err != nil {
			ce := wantErr(t, tc.c.String(), err, caveat.ErrRefused)
			if !strings.Contains(ce.Reason, tc.contains) {
				t.Errorf("%s: reason %q lacks %q", tc.c, ce.Reason, tc.contains)
			}
		}
	}
}

func TestCheckMessages(t *testing.T) {
	// Long lists are cut, and request values are quoted and cut.
	names := make([]string, 1000)
	for i := range names {
		names[i] = "t" + strings.Repeat("0", 3-len(itoa(i))) + itoa(i)
	}
	c, _ := caveat.NewTools(names...)
	err := c.Evaluate(&caveat.Request{Tool: "zzz"}, now, 0)
	msg := err.Error()
	if len(msg) > 400 || !strings.Contains(msg, "(995 more)") {
		t.Errorf("message too long or not cut (%d bytes): %s", len(msg), msg)
	}
	err = c.Evaluate(&caveat.Request{Tool: strings.Repeat("z", 5000)}, now, 0)
	if len(err.Error()) > 200 {
		t.Errorf("long request value not cut: %d bytes", len(err.Error()))
	}
	c = mustParse(t, "paths=src/")
	err = c.Evaluate(&caveat.Request{Paths: []string{"x\x1b]0;pwned\x07"}}, now, 0)
	if strings.ContainsAny(err.Error(), "\x1b\x07") {
		t.Errorf("control characters echoed raw: %q", err)
	}
	// A nil request is an empty one.
	wantErr(t, "nil request", mustParse(t, "tools=a").Evaluate(nil, now, 0), caveat.ErrRefused)
	if err := mustParse(t, "calls=1").Evaluate(nil, now, 0); err != nil {
		t.Errorf("calls with nil request: %v", err)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// A hand-built caveat that breaks the rules never admits more than its
// entries say: matching is by exact lookup only.
func TestCheckInvalidCaveatFailsClosed(t *testing.T) {
	unsorted := caveat.Caveat{Kind: caveat.Tools, List: []string{"z", "a"}}
	if err := unsorted.Evaluate(&caveat.Request{Tool: "b"}, now, 0); err == nil {
		t.Error("unsorted list admitted an unlisted tool")
	}
	noSlash := caveat.Caveat{Kind: caveat.Paths, List: []string{"src"}}
	if err := noSlash.Evaluate(&caveat.Request{Paths: []string{"src-other/x"}}, now, 0); err == nil {
		t.Error("prefix without slash admitted a sibling")
	}
	empty := caveat.Caveat{Kind: caveat.Hosts}
	if err := empty.Evaluate(&caveat.Request{URLs: []string{"https://a.example/"}}, now, 0); err == nil {
		t.Error("empty host list admitted a host")
	}
}
