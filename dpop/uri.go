package dpop

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/internal/uri"
)

func uriError(reason string) error {
	return errors.New("dpop: invalid uri: " + reason)
}

// NormalizeURI returns the normal form of an absolute URI used to compare
// htu values (RFC 9449 §4.3 step 9, spec/FORMAT.md §4.5). The URI must
// follow the grammar of spec/FORMAT.md §4.5 (scheme "://" authority, a
// host of unreserved characters and sub-delims or a bracketed IPv6 literal
// without zone; "https://host/p", "mcp://workspace/read_file"); opaque
// URIs ("urn:x") and userinfo are refused. Query and fragment are
// dropped. Applied, in order:
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
// [MaxURIBytes] long. NormalizeURI is idempotent. Error messages do not quote
// the input.
func NormalizeURI(s string) (string, error) {
	if s == "" {
		return "", uriError("empty")
	}
	if len(s) > MaxURIBytes {
		return "", uriError("too long")
	}
	u, why := uri.Split(s)
	switch {
	case why != "":
		return "", uriError(why)
	case u.UserInfo:
		return "", uriError("userinfo not allowed")
	}
	scheme, host := uri.LowerASCII(u.Scheme), uri.LowerASCII(u.Host)
	if u.Port != "" {
		n, err := strconv.ParseUint(u.Port, 10, 16)
		if err != nil {
			return "", uriError("invalid port")
		}
		if n != defaultPort(scheme) {
			host += ":" + strconv.FormatUint(n, 10)
		}
	}
	path := removeDotSegments(normalizePath(u.Path))
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
	return uri.Unreserved(c) || uri.SubDelim(c) || c == ':' || c == '@' || c == '/'
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
				if d := hi<<4 | lo; uri.Unreserved(d) {
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
