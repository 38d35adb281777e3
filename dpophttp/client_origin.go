package dpophttp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

// admits reports why the ticket must not go to u, or nil: every hosts
// caveat of every block must admit u, and every aud caveat must list
// aud. The blocks are read unverified: the client has no key to verify
// them, and a forged block can only make it send less.
func (c *clientCreds) admits(u *url.URL, aud string) error {
	r := caveat.Request{URLs: []string{u.String()}, Audience: aud}
	for i, b := range c.ticket.UnverifiedBlocks() {
		for _, cv := range b.Caveats {
			if cv.Kind != caveat.Hosts && cv.Kind != caveat.Audience {
				continue
			}
			if err := cv.Evaluate(&r, time.Time{}, 0); err != nil {
				reason := err.Error()
				var ce *caveat.Error
				if errors.As(err, &ce) {
					reason = ce.Reason
				}
				return fmt.Errorf("%w: block %d caveat %s: %s", ErrNotForOrigin, i, cv.Kind, reason)
			}
		}
	}
	return nil
}

// redirectedAway refuses a request that a redirect made, when any
// request of its chain was to another origin than this one.
func redirectedAway(req *http.Request, origin string) error {
	for r := req.Response; r != nil && r.Request != nil; r = r.Request.Response {
		if o, err := originOf(r.Request.URL); err != nil || o != origin {
			return fmt.Errorf("%w: a redirect came from another origin", ErrNotForOrigin)
		}
	}
	return nil
}

// originOf returns scheme://host[:port] of an absolute http(s) URL, the
// scheme and host lowercased and a default port dropped (RFC 6454 §4).
func originOf(u *url.URL) (string, error) {
	if u == nil || u.Host == "" || u.User != nil {
		return "", errors.New("dpophttp: the request url needs a host and no userinfo")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", errors.New("dpophttp: the request url's scheme is not http or https")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == map[string]string{"http": "80", "https": "443"}[scheme] {
		port = ""
	}
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// requestURI is u without query and fragment, as htu (RFC 9449 §4.2).
func requestURI(u *url.URL) string {
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = "", false, "", ""
	return v.String()
}

// validNonce reports whether s is a nonce RFC 9449 §8.1 allows
// (1*NQCHAR), at most MaxNonceBytes long.
func validNonce(s string) bool {
	if s == "" || len(s) > MaxNonceBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func encodeJKT(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
