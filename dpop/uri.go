package dpop

import (
	"bytes"
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

func uriError(reason string) error {
	return errors.New("dpop: invalid uri: " + reason)
}

// NormalizeURI returns the normal form of an absolute URI used to compare
// htu values (RFC 9449 §4.3 step 9). Query and fragment are dropped. The
// URI must have a scheme and a non-empty authority host ("https://host/p",
// "mcp://workspace/read_file"); opaque URIs ("urn:x"), userinfo and IPv6
// zone identifiers are refused. Applied, in order:
//
//   - RFC 3986 §6.2.2.1: scheme and host are lowercased (ASCII only; no
//     IDNA processing); hex digits of percent-encodings are uppercased.
//   - RFC 3986 §6.2.2.2: percent-encoded unreserved characters
//     (ALPHA DIGIT "-" "." "_" "~") are decoded; other encodings such as
//     "%2F" are kept.
//   - RFC 3986 §6.2.2.3: dot-segments are removed (§5.2.4).
//   - RFC 3986 §6.2.3: an empty port and the default port of http/ws (80)
//     and https/wss (443) are removed, leading zeros of a port are dropped,
//     and an empty path becomes "/".
//
// The result is "scheme://host[:port]/path"; input and result are at most
// MaxURIBytes long. NormalizeURI is idempotent. Error messages do not quote
// the input.
func NormalizeURI(s string) (string, error) {
	if s == "" {
		return "", uriError("empty")
	}
	if len(s) > MaxURIBytes {
		return "", uriError("too long")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", uriError("not a uri")
	}
	switch {
	case u.Scheme == "":
		return "", uriError("not absolute")
	case u.Opaque != "":
		return "", uriError("no authority")
	case u.User != nil:
		return "", uriError("userinfo not allowed")
	}
	scheme := u.Scheme // url.Parse lowercases the scheme
	authority, rawPath := splitRaw(s)
	if strings.IndexByte(authority, '%') >= 0 {
		return "", uriError("percent-encoding in the host")
	}
	host, port, err := splitHost(u.Host)
	if err != nil {
		return "", err
	}
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return "", uriError("invalid port")
		}
		if n != defaultPort(scheme) {
			host += ":" + strconv.FormatUint(n, 10)
		}
	}
	path := removeDotSegments(normalizePath(rawPath))
	if path == "" {
		path = "/"
	}
	n := len(scheme) + 3 + len(host) + len(path)
	if n > MaxURIBytes { // percent-encoding may have grown it
		return "", uriError("too long")
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(path)
	return b.String(), nil
}

// splitHost splits an authority (without userinfo) into a lowercased host
// and a port of digits. An IPv6 literal must be bracketed, valid, and have
// no zone; it is lowercased, not otherwise rewritten.
func splitHost(authority string) (host, port string, err error) {
	rest := authority
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", "", uriError("invalid host")
		}
		ip, perr := netip.ParseAddr(authority[1:end])
		if perr != nil || !ip.Is6() || ip.Zone() != "" {
			return "", "", uriError("invalid ipv6 host")
		}
		host, rest = "["+lowerASCII(authority[1:end])+"]", authority[end+1:]
	} else {
		i := strings.IndexByte(authority, ':')
		if i < 0 {
			i = len(authority)
		}
		host, rest = lowerASCII(authority[:i]), authority[i:]
		if host == "" {
			return "", "", uriError("missing host")
		}
		for _, c := range []byte(host) {
			if !isUnreserved(c) && !isSubDelim(c) {
				return "", "", uriError("invalid host")
			}
		}
	}
	if rest == "" || rest == ":" {
		return host, "", nil
	}
	if rest[0] != ':' {
		return "", "", uriError("invalid host")
	}
	for _, c := range []byte(rest[1:]) {
		if c < '0' || c > '9' {
			return "", "", uriError("invalid port")
		}
	}
	return host, rest[1:], nil
}

// defaultPort returns the default port of a scheme, or 0 when unknown.
func defaultPort(scheme string) uint64 {
	switch scheme {
	case "http", "ws":
		return 80
	case "https", "wss":
		return 443
	}
	return 0
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
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

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// pathByte reports whether c stands for itself in a normal path.
func pathByte(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || c == '/'
}

// isSubDelim reports whether c is an RFC 3986 sub-delim.
func isSubDelim(c byte) bool {
	return strings.IndexByte("!$&'()*+,;=", c) >= 0
}

// splitRaw returns the authority and the path of s exactly as written:
// s is "scheme://authority[path][?query][#fragment]" (url.Parse accepted
// it, with a scheme and a host), and the path runs from the first '/'
// after "://" to the first '?' or '#'.
func splitRaw(s string) (authority, path string) {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// normalizePath writes the path as written in one normal form (RFC 3986
// §6.2.2.1 and §6.2.2.2, spec/FORMAT.md §4.5 step 6): a percent-encoded
// unreserved character is decoded, every other percent-encoding keeps
// its value with uppercase hex digits, unreserved characters, sub-delims,
// ':', '@' and '/' stay as they are, and every other byte (a space,
// non-ASCII bytes, '"', '<', '[' …) is percent-encoded. url.Parse has
// already refused a '%' not followed by two hex digits; one is copied
// unchanged all the same.
func normalizePath(p string) string {
	if !strings.ContainsFunc(p, func(r rune) bool { return r >= 0x80 || !pathByte(byte(r)) }) {
		return p // already normal: nothing to decode or encode
	}
	const upper = "0123456789ABCDEF"
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' && i+2 < len(p) {
			hi, ok1 := unhex(p[i+1])
			lo, ok2 := unhex(p[i+2])
			if ok1 && ok2 {
				if d := hi<<4 | lo; isUnreserved(d) {
					b = append(b, d)
				} else {
					b = append(b, '%', upper[hi], upper[lo])
				}
				i += 2
				continue
			}
		}
		if c == '%' || pathByte(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', upper[c>>4], upper[c&15])
	}
	return string(b)
}

// removeDotSegments is the algorithm of RFC 3986 §5.2.4.
func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	out := make([]byte, 0, len(in))
	dropLast := func() {
		if i := bytes.LastIndexByte(out, '/'); i >= 0 {
			out = out[:i]
		} else {
			out = out[:0]
		}
	}
	for len(in) > 0 {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			dropLast()
		case in == "/..":
			in = "/"
			dropLast()
		case in == "." || in == "..":
			in = ""
		default:
			start := 0
			if in[0] == '/' {
				start = 1
			}
			i := strings.IndexByte(in[start:], '/')
			if i < 0 {
				i = len(in)
			} else {
				i += start
			}
			out = append(out, in[:i]...)
			in = in[i:]
		}
	}
	return string(out)
}
