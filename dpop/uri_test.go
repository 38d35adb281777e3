package dpop_test

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/dpop"
)

// RFC 3986 §6.2.2 (case, percent-encoding, dot segments) and §6.2.3 (port,
// empty path) normalisation; query and fragment dropped.
func TestNormalizeURI(t *testing.T) {
	ok := map[string]string{
		"https://server.example.com/token":   "https://server.example.com/token",
		"HTTPS://SERVER.Example.com/token":   "https://server.example.com/token",
		"https://server.example.com":         "https://server.example.com/",
		"https://server.example.com?q=1":     "https://server.example.com/",
		"https://server.example.com/t?q=1#f": "https://server.example.com/t",
		"https://server.example.com:443/t":   "https://server.example.com/t",
		"https://server.example.com:0443/t":  "https://server.example.com/t",
		"https://server.example.com:/t":      "https://server.example.com/t",
		"https://server.example.com:80/t":    "https://server.example.com:80/t",
		"http://server.example.com:80/t":     "http://server.example.com/t",
		"http://server.example.com:08080/t":  "http://server.example.com:8080/t",
		"wss://h:443/":                       "wss://h/",
		"mcp://workspace/read_file":          "mcp://workspace/read_file",
		"MCP://WorkSpace/read_file":          "mcp://workspace/read_file",
		"mcp://workspace:80/x":               "mcp://workspace:80/x",
		"https://h/a/b/c/./../../g":          "https://h/a/g",
		"https://h/mid/content=5/../6":       "https://h/mid/6",
		"https://h/../../a":                  "https://h/a",
		"https://h/a/..":                     "https://h/",
		"https://h/a/.":                      "https://h/a/",
		"https://h/%2E%2E/a":                 "https://h/a",
		"https://h/%7euser/%41%2d":           "https://h/~user/A-",
		"https://h/a%2fb":                    "https://h/a%2Fb",
		"https://h/a%c3%a9":                  "https://h/a%C3%A9",
		"https://h/a b":                      "https://h/a%20b",
		"https://h//double//slash":           "https://h//double//slash",
		// The path as written, one byte at a time: a character that needs
		// escaping elsewhere in the path changes nothing else.
		"https://h/a(b c":                                "https://h/a(b%20c",
		"https://h/a(b%20c":                              "https://h/a(b%20c",
		"https://h/a%2Fb c":                              "https://h/a%2Fb%20c",
		"https://h/\u00e9":                               "https://h/%C3%A9",
		"https://h/a\"b<c>{d}|^`":                        "https://h/a%22b%3Cc%3E%7Bd%7D%7C%5E%60",
		"https://h/!$&'()*+,;=:@":                        "https://h/!$&'()*+,;=:@",
		"https://h/%7e%7E~":                              "https://h/~~~",
		"https://a.b-c_d~e/":                             "https://a.b-c_d~e/",
		"https://[2001:DB8::1]:8443/p":                   "https://[2001:db8::1]:8443/p",
		"https://127.0.0.1/p":                            "https://127.0.0.1/p",
		"https://server.example.com/token/":              "https://server.example.com/token/",
		"https://server.example.com/T":                   "https://server.example.com/T",
		"https://resource.example.org/protectedresource": "https://resource.example.org/protectedresource",
	}
	for in, want := range ok {
		got, err := dpop.NormalizeURI(in)
		if err != nil || got != want {
			t.Errorf("NormalizeURI(%q) = %q, %v; want %q", in, got, err, want)
			continue
		}
		// Idempotent.
		if again, err := dpop.NormalizeURI(got); err != nil || again != got {
			t.Errorf("NormalizeURI(%q) = %q, %v; not idempotent", got, again, err)
		}
	}
	bad := []string{
		"", "/token", "token", "//h/p", "urn:example:x", "mailto:a@b", "https:///p", "https://user@h/p",
		"https://user:pw@h/p", "https://h:99999/p", "https://h:x/p", "https://h%20/p", "http://[fe80::1%25en0]/",
		"https://h/%zz", "\x00", "https://b%C3%BCcher.example/", "https://a%41.example/", "https://a<b.example/",
		"https://a\"b.example/", "https://a>b/", "https://a{b}/", "A://::0", "https://a:b:1/", "https://[::1/", "https://[1.2.3.4]/", "https://[::1]x/", "https://" + strings.Repeat("a", dpop.MaxURIBytes) + "/", "https://h/" + strings.Repeat("\"", dpop.MaxURIBytes/2),
	}
	for _, in := range bad {
		got, err := dpop.NormalizeURI(in)
		if err == nil {
			t.Errorf("NormalizeURI(%q) = %q, want error", in, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), "dpop: ") || (len(in) > 8 && strings.Contains(err.Error(), in)) {
			t.Errorf("NormalizeURI(%q) error %q", in, err)
		}
	}
}

// Verify skips normalising an htu byte-equal to the normalised expected URI,
// which is only sound if NormalizeURI is idempotent.
func TestNormalizeURIIdempotent(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in := rapid.OneOf(uriGen, rapid.String(), rapid.StringMatching(`[a-zA-Z]{1,5}://[^/?#]{0,12}[ -~]{0,30}`)).Draw(rt, "uri")
		n, err := dpop.NormalizeURI(in)
		if err != nil {
			return
		}
		if again, err := dpop.NormalizeURI(n); err != nil || again != n {
			rt.Fatalf("NormalizeURI(%q) = %q; again %q, %v", in, n, again, err)
		}
	})
}

func FuzzNormalizeURI(f *testing.F) {
	for _, s := range []string{"https://h/a/../b?q#f", "HTTP://[::1]:80", "mcp://w/%7e%2f", "https://h:0443/./", "A://::0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := dpop.NormalizeURI(in)
		if err != nil {
			return
		}
		if again, err := dpop.NormalizeURI(n); err != nil || again != n {
			t.Fatalf("NormalizeURI(%q) = %q; again %q, %v", in, n, again, err)
		}
	})
}

// RFC 9449 §4.3 step 9 with RFC 3986 §6.2.2/§6.2.3 normalisation: query
// and fragment are ignored on both sides; case, default ports, percent
// encoding and dot segments are normalised.
func TestCheckHTU(t *testing.T) {
	es := newKey(t, "ES256", 1)
	cases := []struct {
		htu, want string
		ok        bool
	}{
		{"https://server.example.com/token", "https://server.example.com/token", true},
		{"https://server.example.com/token?a=1#frag", "https://server.example.com/token", true},
		{"https://server.example.com/token", "https://server.example.com/token?b=2#x", true},
		{"https://server.example.com/token?", "https://server.example.com/token#", true},
		{"HTTPS://Server.Example.COM/token", "https://server.example.com/token", true},
		{"https://server.example.com:443/token", "https://server.example.com/token", true},
		{"https://server.example.com:/token", "https://server.example.com/token", true},
		{"http://server.example.com:80/token", "http://server.example.com/token", true},
		{"https://server.example.com", "https://server.example.com/", true},
		{"https://server.example.com/a/./b/../../token", "https://server.example.com/token", true},
		{"https://server.example.com/%7Euser/%41", "https://server.example.com/~user/A", true},
		{"https://server.example.com/a%2fb", "https://server.example.com/a%2Fb", true},
		{"mcp://workspace/read_file", "MCP://Workspace/read_file", true},
		{"https://[::1]:8443/t", "https://[0:0:0:0:0:0:0:1]:8443/t", false}, // no IP canonicalisation
		{"https://server.example.com/token", "https://server.example.com/Token", false},
		{"https://server.example.com/token", "https://server.example.com/token/", false},
		{"https://server.example.com/a%2Fb", "https://server.example.com/a/b", false},
		{"https://server.example.com:8443/token", "https://server.example.com/token", false},
		{"http://server.example.com/token", "https://server.example.com/token", false},
		{"https://server.example.com:80/token", "https://server.example.com/token", false},
		{"https://other.example.com/token", "https://server.example.com/token", false},
		{"mcp://workspace/read_file", "mcp://workspace/write_file", false},
	}
	for _, c := range cases {
		proof := craft(t, header(t, es, "ES256"), map[string]any{"jti": "j", "htm": "GET", "htu": c.htu, "iat": testNow.Unix()}, signerFor(es))
		p, err := dpop.Verify(proof, dpop.Expectations{Method: "GET", URI: c.want}, testNow)
		if !c.ok {
			wantRefused(t, err, dpop.CheckHTU)
			continue
		}
		if err != nil {
			t.Fatalf("htu %q vs %q: %v", c.htu, c.want, err)
		}
		if p.URI != c.htu {
			t.Fatalf("Proof.URI = %q, want the htu as sent %q", p.URI, c.htu)
		}
		if want, _ := dpop.NormalizeURI(c.want); p.ReplayKey.URI != want {
			t.Fatalf("ReplayKey.URI = %q, want %q", p.ReplayKey.URI, want)
		}
	}
}
