package dpophttp

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// origin returns the public scheme and host of r: the configured public
// URL's, or, for a request from a trusted proxy that names them, the
// proxy's (the last X-Forwarded-Proto and X-Forwarded-Host, or the last
// Forwarded element's proto= and host=). Host and the forwarding
// headers of anyone else are never read: a client could name any origin
// there, and a proof for another server would pass.
func (m *Middleware) origin(r *http.Request) (scheme, host string, e *Error) {
	scheme, host = m.public.Scheme, m.public.Host
	if !m.trusted(r.RemoteAddr) {
		return scheme, host, nil
	}
	fproto, fhost := lastForwarded(r.Header.Values("Forwarded"))
	if p := lastList(r.Header.Values("X-Forwarded-Proto")); p != "" {
		fproto = p
	}
	if h := lastList(r.Header.Values("X-Forwarded-Host")); h != "" {
		fhost = h
	}
	if fproto != "" {
		fproto = strings.ToLower(fproto)
		if fproto != "http" && fproto != "https" {
			return "", "", malformed("the trusted proxy's forwarded proto is neither http nor https")
		}
		scheme = fproto
	}
	if fhost != "" {
		u, err := url.Parse(scheme + "://" + fhost)
		if err != nil || u.Host != fhost || u.User != nil || u.Path != "" || u.Hostname() == "" {
			return "", "", malformed("the trusted proxy's forwarded host is not a host[:port]")
		}
		host = fhost
	}
	return scheme, host, nil
}

func (m *Middleware) trusted(remote string) bool {
	if len(m.opt.TrustedProxies) == 0 {
		return false
	}
	h, _, err := net.SplitHostPort(remote)
	if err != nil {
		h = remote
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range m.opt.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// lastList is the last element of a comma-separated header list.
func lastList(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	v := vs[len(vs)-1]
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}

// lastForwarded reads proto= and host= of the last element of RFC 7239
// Forwarded headers.
func lastForwarded(vs []string) (proto, host string) {
	el := lastList(vs)
	for _, pair := range strings.Split(el, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		switch strings.ToLower(k) {
		case "proto":
			proto = v
		case "host":
			host = v
		}
	}
	return proto, host
}

// publicURL is the URL a client addressed: the public origin, the public
// URL's path prefix and r's path as sent (its escaping kept), without
// query (htu ignores it, RFC 9449 §4.3).
func (m *Middleware) publicURL(r *http.Request) (string, *Error) {
	scheme, host, e := m.origin(r)
	if e != nil {
		return "", e
	}
	return scheme + "://" + host + m.public.EscapedPath() + r.URL.EscapedPath(), nil
}
