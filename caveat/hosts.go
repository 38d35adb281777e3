package caveat

import (
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/internal/uri"
)

// patternProblem returns why s is not a canonical host pattern, or "".
func patternProblem(s string) string {
	if !isASCII(s) {
		return "is not ASCII: write internationalised names as punycode (xn--...)"
	}
	if len(s) > maxHost {
		return "is longer than 253 bytes"
	}
	domain, wild := strings.CutPrefix(s, "*.")
	if strings.IndexByte(domain, '*') >= 0 {
		return "may hold * only as its whole first label, as in *.example.org"
	}
	if why := domainProblem(domain); why != "" {
		return why
	}
	if wild {
		dot := strings.LastIndexByte(domain, '.')
		if dot < 0 {
			return "needs at least two labels after *. (*.example.org, not *.org)"
		}
		if allDigits(domain[dot+1:]) {
			return "ends in a numeric label, which a wildcard may not (IP addresses match only exactly)"
		}
	}
	return ""
}

// domainProblem checks the labels of a lowercase ASCII host name.
func domainProblem(d string) string {
	if d == "" {
		return "is empty"
	}
	if d[len(d)-1] == '.' {
		return "ends with a dot"
	}
	for {
		i := strings.IndexByte(d, '.')
		label := d
		if i >= 0 {
			label = d[:i]
		}
		switch {
		case label == "":
			return "has an empty label"
		case len(label) > maxLabel:
			return "has a label longer than 63 bytes"
		case label[0] == '-' || label[len(label)-1] == '-':
			return "has a label starting or ending with -"
		}
		for j := 0; j < len(label); j++ {
			b := label[j]
			if 'A' <= b && b <= 'Z' {
				return "must be lowercase"
			}
			if !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-') {
				return "has a character outside [a-z0-9-]"
			}
		}
		if i < 0 {
			return ""
		}
		d = d[i+1:]
	}
}

// validPort reports whether p, the digits net/url found after the host's
// colon (or ""), is empty or a number in 0..65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.ParseUint(p, 10, 16)
	return err == nil && n <= 65535
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// urlHost returns the host that a hosts caveat matches for the URL raw,
// or why there is none: raw must follow the URI grammar of spec/FORMAT.md
// §4.5 (package internal/uri); the host is its host (so userinfo and port
// never count, though a port must lie in 0..65535), lowercased, with one
// trailing dot removed, made of non-empty labels of [a-z0-9_-]. IPv6
// literals are refused: no pattern can name one.
func urlHost(raw string) (string, string) {
	u, why := uri.Split(raw)
	if why != "" {
		return "", why
	}
	h := u.Host
	switch {
	case !validPort(u.Port):
		return "", "has a port outside 0..65535"
	case h[0] == '[':
		return "", "has an IPv6 literal host, which no host pattern matches"
	}
	h = uri.LowerASCII(h)
	h = strings.TrimSuffix(h, ".")
	if h == "" || h[0] == '.' || strings.Contains(h, "..") || h[len(h)-1] == '.' {
		return "", "has a host with an empty label"
	}
	for i := 0; i < len(h); i++ {
		if b := h[i]; !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-' || b == '_' || b == '.') {
			return "", "has a host with a character outside [a-z0-9._-]"
		}
	}
	return h, ""
}

// hostCovered reports whether the sorted pattern list matches the host h
// (an exact entry equal to h, or "*.s" where h ends in "."+s with at least
// one label before), and, when h is itself a pattern "*.t", whether the
// list covers it ("*.t" itself, or "*.s" where t ends in "."+s). Each
// candidate is one binary search, one per label of h.
func hostCovered(list []string, h string) bool {
	if contains(list, h) {
		return true
	}
	body := strings.TrimPrefix(h, "*.")
	for i := strings.IndexByte(body, '.'); i >= 0; {
		if i > 0 && containsJoined(list, "*.", body[i+1:]) {
			return true
		}
		j := strings.IndexByte(body[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}
