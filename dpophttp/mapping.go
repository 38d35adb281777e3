package dpophttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

// DefaultMap is the mapping of a request when Options.Map is nil:
//
//   - Tool: the tool of the Route whose pattern the request matched
//     (Request.Pattern, when the middleware runs inside an http.ServeMux
//     route, else Options.Routes matched as http.ServeMux matches), else
//     the method ("GET").
//   - Op: the method in lower case ("get"), so an ops caveat can allow
//     reads only.
//   - Paths: the public path (the public URL's prefix and the request's
//     path, decoded), which must be normal: a path with an empty, "." or
//     ".." segment (encoded or not), an encoded "/" or "\", a backslash
//     or a control character is refused before the ticket is checked.
//   - URLs: the public URL (public origin and path), so hosts caveats hold.
//   - Audience: Options.Audience.
//   - Args: for a JSON body (application/json or +json), the digest of
//     its RFC 8785 form (caveat.ArgsDigest), so that an args caveat or
//     an approval binds the exact body; nil when the body is not JSON
//     or cannot be canonicalised (an args caveat then refuses).
//
// body is the request's body for a JSON or form body (read by the
// middleware, at most Options.MaxBodyBytes), else nil.
func (m *Middleware) DefaultMap(r *http.Request, body []byte) (*caveat.Request, error) {
	p, err := m.publicPath(r)
	if err != nil {
		return nil, err
	}
	pub, e := m.publicURL(r)
	if e != nil {
		return nil, errors.New(e.Description)
	}
	req := &caveat.Request{Tool: m.toolOf(r), Op: strings.ToLower(r.Method), Paths: []string{p},
		URLs: []string{pub}, Audience: m.opt.Audience}
	if body != nil && isJSON(r.Header.Get("Content-Type")) {
		if d, err := caveat.ArgsDigest(body); err == nil {
			req.Args = d
		}
	}
	return req, nil
}

// toolOf names r for the tools caveat.
func (m *Middleware) toolOf(r *http.Request) string {
	if t, ok := m.tools[r.Pattern]; ok && r.Pattern != "" {
		return t
	}
	if m.routes != nil {
		if _, p := m.routes.Handler(r); p != "" {
			return m.tools[p]
		}
	}
	return r.Method
}

// publicPath is the decoded public path of r, refused unless normal.
func (m *Middleware) publicPath(r *http.Request) (string, error) {
	raw := strings.ToLower(r.URL.EscapedPath())
	if strings.Contains(raw, "%2f") || strings.Contains(raw, "%5c") {
		return "", errors.New("the path has an encoded / or \\")
	}
	p := m.public.Path + r.URL.Path
	if p == "" || p[0] != '/' {
		return "", errors.New("the path is not absolute")
	}
	if p == "/" {
		return p, nil
	}
	body := strings.TrimSuffix(p[1:], "/")
	for _, seg := range strings.Split(body, "/") {
		switch seg {
		case "":
			return "", errors.New("the path has an empty segment")
		case ".", "..":
			return "", errors.New("the path has a " + seg + " segment")
		}
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return "", errors.New("the path has a backslash or a control character")
		}
	}
	return p, nil
}

func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func isForm(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/x-www-form-urlencoded"
}

// readBody reads a JSON or form body (at most MaxBodyBytes) and puts it
// back for the handler; other bodies stream untouched (nil). A form body
// carrying a ticket is malformed (RFC 6750 §2.2 is not supported: a
// ticket travels in the Authorization header only).
func (m *Middleware) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *Error) {
	ct := r.Header.Get("Content-Type")
	if r.Body == nil || r.Body == http.NoBody || !isJSON(ct) && !isForm(ct) {
		return nil, nil
	}
	if r.ContentLength > m.opt.MaxBodyBytes {
		return nil, tooLarge(m.opt.MaxBodyBytes)
	}
	rc := http.NewResponseController(w)
	deadline := rc.SetReadDeadline(time.Now().Add(m.opt.BodyTimeout)) == nil
	b, err := io.ReadAll(io.LimitReader(r.Body, m.opt.MaxBodyBytes+1))
	if deadline && err == nil {
		// The handler reads on at its own pace. After a failed read the
		// deadline stays: the server, discarding the rest of the body
		// before it answers, would wait for the slow client again.
		rc.SetReadDeadline(time.Time{})
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return nil, &Error{Status: http.StatusRequestTimeout, Code: CodeInvalidRequest,
			Description: fmt.Sprintf("the body did not arrive within %v", m.opt.BodyTimeout)}
	case err != nil:
		return nil, malformed("the body could not be read")
	}
	if int64(len(b)) > m.opt.MaxBodyBytes {
		return nil, tooLarge(m.opt.MaxBodyBytes)
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	if isForm(ct) {
		if q, err := url.ParseQuery(string(b)); err != nil || hasTicket(q) {
			return nil, malformed("a form body that carries a ticket or does not parse: send the ticket in the Authorization header")
		}
	}
	return b, nil
}
