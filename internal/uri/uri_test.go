package uri

import (
	"net/url"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestSplit(t *testing.T) {
	ok := []struct{ in, scheme, host, port, path string }{
		{"https://h/p", "https", "h", "", "/p"},
		{"HTTPS://Ex.Org:0443/a b?q#f", "HTTPS", "Ex.Org", "0443", "/a b"},
		{"mcp://workspace/read_file", "mcp", "workspace", "", "/read_file"},
		{"https://h:", "https", "h", "", ""},
		{"https://u:p%41@h/", "https", "h", "", "/"},
		{"https://a.example.com@evil.com/", "https", "evil.com", "", "/"},
		{"https://[2001:db8::1]:8443/x", "https", "[2001:db8::1]", "8443", "/x"},
		{"s+a.b-c://h!$&'()*+,;=~_-./%2F%c3%a9", "s+a.b-c", "h!$&'()*+,;=~_-.", "", "/%2F%c3%a9"},
		{"https://h/é\"<>{}", "https", "h", "", "/é\"<>{}"},
	}
	for _, c := range ok {
		p, why := Split(c.in)
		if why != "" || p.Scheme != c.scheme || p.Host != c.host || p.Port != c.port || p.Path != c.path {
			t.Errorf("Split(%q) = %+v, %q", c.in, p, why)
		}
	}
	for _, in := range []string{
		"", "h/p", "//h/p", "urn:x", "1https://h/", "ht~tp://h/", "https:///p", "https://:80/", "https://h%41/",
		"https://b%C3%BCcher/", "https://a<b/", "https://a b/", "https://h:x/", "https://a:b:1/", "https://[::1/",
		"https://[1.2.3.4]/", "https://[fe80::1%25en0]/", "https://[::1]x/", "https://h/%zz", "https://h/?%z",
		"https://h/#%", "https://h/\x7f", "https://h/\n", "https://u@v@h/", "https://u\\@h/", "https://h\\.evil/",
	} {
		if p, why := Split(in); why == "" {
			t.Errorf("Split(%q) = %+v, want a refusal", in, p)
		} else if len(in) > 8 && strings.Contains(why, in) {
			t.Errorf("Split(%q) quotes its input: %q", in, why)
		}
	}
}

// agree is the reference property: whatever Split accepts, net/url
// accepts too, with the same scheme, host, port, userinfo and path.
func agree(t interface{ Fatalf(string, ...any) }, s string) {
	p, why := Split(s)
	if why != "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("Split accepts %q, url.Parse refuses: %v", s, err)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(p.Host, "["), "]")
	if u.Scheme != strings.ToLower(p.Scheme) || u.Hostname() != host || u.Port() != p.Port ||
		(u.User != nil) != p.UserInfo {
		t.Fatalf("%q: Split %+v, url.Parse scheme %q host %q port %q user %v", s, p, u.Scheme, u.Hostname(), u.Port(), u.User != nil)
	}
	if dec, err := url.PathUnescape(p.Path); err != nil || dec != u.Path {
		t.Fatalf("%q: path %q decodes to %q (%v), url.Parse has %q", s, p.Path, dec, err, u.Path)
	}
}

func TestSplitAgreesWithNetURL(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		agree(rt, rapid.StringMatching(`[a-zA-Z][a-zA-Z0-9+.-]{0,4}://([a-z:%@\[\]]{0,4}@)?(\[[0-9a-f:.%]{0,12}\]|[a-zA-Z0-9.~_!$&'()*+,;=%<>-]{0,10})(:[0-9a-z]{0,5})?(/[ -~é]{0,20})?(\?[ -~]{0,6})?(#[ -~]{0,6})?`).Draw(rt, "uri"))
	})
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"https://h/p", "https://u@h:1/a%2Fb?q#f", "https://[::1]/", "mcp://w/x", "https://h/%zz", "a://b@c@d/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { agree(t, s) })
}
