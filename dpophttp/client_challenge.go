package dpophttp

import (
	"net/http"
	"strings"
)

// challenge is one challenge of a WWW-Authenticate header (RFC 9110
// §11.6.1): its scheme and its auth-params, names lowercased, quoted
// values unquoted.
type challenge struct {
	Scheme string
	Params map[string]string
}

// parseChallenges reads the challenges of h's WWW-Authenticate fields,
// in order. A field it cannot read to its end yields the challenges
// before the fault; a token68 is skipped. Fields longer than
// maxChallengeBytes in all are not read.
func parseChallenges(h http.Header) []challenge {
	var out []challenge
	n := 0
	for _, v := range h.Values("WWW-Authenticate") {
		if n += len(v); n > maxChallengeBytes {
			break
		}
		out = append(out, parseChallengeField(v)...)
	}
	return out
}

// dpopChallenge returns the first DPoP challenge of h, if any.
func dpopChallenge(h http.Header) (challenge, bool) {
	for _, c := range parseChallenges(h) {
		if strings.EqualFold(c.Scheme, "DPoP") {
			return c, true
		}
	}
	return challenge{}, false
}

// parseChallengeField parses one field value: a comma-separated list in
// which a token not followed by "=" starts a new challenge and name=value
// pairs are the current challenge's params.
func parseChallengeField(s string) []challenge {
	var out []challenge
	p := challengeScanner{s: s}
	for {
		p.skipSpaceAndCommas()
		if p.done() {
			return out
		}
		tok := p.token()
		if tok == "" {
			return out
		}
		p.skipSpace()
		if !p.done() && p.peek() == '=' && len(out) > 0 {
			p.i++
			p.skipSpace()
			v, ok := p.value()
			if !ok {
				return out
			}
			out[len(out)-1].Params[strings.ToLower(tok)] = v
			continue
		}
		out = append(out, challenge{Scheme: tok, Params: map[string]string{}})
		// A token68 (RFC 9110 §11.2) after the scheme: skip it.
		rest := p.s[p.i:]
		end := strings.IndexByte(rest, ',')
		if end < 0 {
			end = len(rest)
		}
		if isToken68(strings.TrimSpace(rest[:end])) {
			p.i += end
		}
	}
}

// isToken68 reports whether s is a token68: 1*( ALPHA / DIGIT / "-" /
// "." / "_" / "~" / "+" / "/" ) *"=".
func isToken68(s string) bool {
	t := strings.TrimRight(s, "=")
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}

// tokenChars are RFC 9110's tchar.
const tokenChars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

type challengeScanner struct {
	s string
	i int
}

func (p *challengeScanner) done() bool { return p.i >= len(p.s) }
func (p *challengeScanner) peek() byte { return p.s[p.i] }

func (p *challengeScanner) skipSpace() {
	for !p.done() && (p.peek() == ' ' || p.peek() == '\t') {
		p.i++
	}
}

func (p *challengeScanner) skipSpaceAndCommas() {
	for !p.done() && (p.peek() == ' ' || p.peek() == '\t' || p.peek() == ',') {
		p.i++
	}
}

// token reads an RFC 9110 token.
func (p *challengeScanner) token() string {
	start := p.i
	for !p.done() && strings.IndexByte(tokenChars, p.peek()) >= 0 {
		p.i++
	}
	return p.s[start:p.i]
}

// value reads a token or a quoted-string (RFC 9110 §5.6.4).
func (p *challengeScanner) value() (string, bool) {
	if p.done() {
		return "", false
	}
	if p.peek() != '"' {
		t := p.token()
		return t, t != ""
	}
	var b strings.Builder
	for p.i++; !p.done(); p.i++ {
		switch c := p.peek(); c {
		case '"':
			p.i++
			return b.String(), true
		case '\\':
			if p.i++; p.done() {
				return "", false
			}
			b.WriteByte(p.peek())
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}
