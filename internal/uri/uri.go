// Package uri splits an absolute URI with an authority by the one grammar
// that spec/FORMAT.md §4.5 (DPoP htu) and spec/CAVEATS.md (hosts) state, so
// that a second implementation need not copy any library's URL parser:
//
//	uri       = scheme "://" authority path [ "?" query ] [ "#" fragment ]
//	scheme    = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
//	authority = [ userinfo "@" ] host [ ":" port ]
//	userinfo  = *( unreserved / sub-delims / ":" / pct-encoded )
//	host      = "[" IPv6address "]" / 1*( unreserved / sub-delims )
//	port      = *DIGIT
//	path      = "/" *( any byte but "?" and "#" ) / ""
//
// The authority ends at the first "/", "?" or "#"; the userinfo, if any,
// at the last "@" in it. No byte of the whole URI may be an ASCII control
// character (0x00–0x1F, 0x7F), and every "%" after the scheme must start a
// pct-encoded triplet; query and fragment are otherwise not looked at. The IPv6 address is RFC 4291 text without a zone. A host is never
// percent-decoded: a "%" in it refuses the URI.
//
// net/url stays the reference: a fuzz test holds that whatever Split
// accepts, url.Parse accepts with the same scheme, host and port.
package uri

import (
	"net/netip"
	"strings"
)

// Parts are the pieces of a URI as written.
type Parts struct {
	Scheme   string // as written; schemes compare case-insensitively
	UserInfo bool   // whether the authority had "userinfo@"
	Host     string // as written: a reg-name, or "[IPv6]"
	Port     string // the digits after ":" ("" when absent or empty)
	Path     string // from the first "/" of the path, as written
}

// Split returns the parts of s, or a reason (for people, never quoting s)
// why s does not follow the grammar.
func Split(s string) (Parts, string) {
	var p Parts
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return p, "has a control character"
		}
	}
	i := strings.Index(s, "://")
	if i <= 0 || !validScheme(s[:i]) {
		return p, "is not an absolute URI with a host (scheme://host/…)"
	}
	p.Scheme, s = s[:i], s[i+3:]
	if !validPercent(s) {
		return p, "has a % not followed by two hex digits"
	}
	if j := strings.IndexAny(s, "?#"); j >= 0 {
		s = s[:j]
	}
	authority := s
	if j := strings.IndexByte(s, '/'); j >= 0 {
		authority, p.Path = s[:j], s[j:]
	}
	if j := strings.LastIndexByte(authority, '@'); j >= 0 {
		if !validUserInfo(authority[:j]) {
			return p, "has invalid userinfo"
		}
		p.UserInfo, authority = true, authority[j+1:]
	}
	host, port, why := splitHostPort(authority)
	if why != "" {
		return p, why
	}
	p.Host, p.Port = host, port
	return p, ""
}

func splitHostPort(a string) (host, port, why string) {
	rest := a
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return "", "", "has an unclosed ["
		}
		ip, err := netip.ParseAddr(a[1:end])
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return "", "", "has an invalid IPv6 host"
		}
		host, rest = a[:end+1], a[end+1:]
	} else {
		end := strings.IndexByte(a, ':')
		if end < 0 {
			end = len(a)
		}
		host, rest = a[:end], a[end:]
		if host == "" {
			return "", "", "is not an absolute URI with a host (scheme://host/…)"
		}
		for i := 0; i < len(host); i++ {
			switch c := host[i]; {
			case c >= 0x80:
				return "", "", "has a non-ASCII host (write it as punycode, xn--…)"
			case c == '%':
				return "", "", "has a percent-encoded host"
			case !Unreserved(c) && !SubDelim(c):
				return "", "", "has a host character outside unreserved and sub-delims"
			}
		}
	}
	if rest == "" {
		return host, "", ""
	}
	if rest[0] != ':' {
		return "", "", "has characters after the host"
	}
	for i := 1; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", "", "has a port that is not digits"
		}
	}
	return host, rest[1:], ""
}

func validScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

func validUserInfo(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !Unreserved(c) && !SubDelim(c) && c != ':' && c != '%' {
			return false
		}
	}
	return true
}

// validPercent reports whether every "%" in s starts "%" HEXDIG HEXDIG.
func validPercent(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Unreserved reports whether c is an RFC 3986 unreserved character.
func Unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// SubDelim reports whether c is an RFC 3986 sub-delim.
func SubDelim(c byte) bool {
	return strings.IndexByte("!$&'()*+,;=", c) >= 0
}

// LowerASCII lowercases the ASCII letters A–Z of s (schemes and hosts
// compare case-insensitively, RFC 3986 §6.2.2.1; no other byte changes),
// allocating only when something changes.
func LowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
