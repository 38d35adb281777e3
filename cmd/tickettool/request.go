package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/internal/escape"
	"github.com/tickettool/tickettool/key"
)

const requestUsage = `
usage: tickettool request [-X METHOD] [-H 'NAME: VALUE']... [-d DATA|@FILE]
                          --ticket TICKET [--holder-key HOLDER] [--aud NAME] URL

Sends one HTTP request with a ticket, as a small curl, and prints the
response body on standard output. A bound ticket goes as
"Authorization: DPoP" with a fresh DPoP proof signed by --holder-key (RFC
9449); an unbound ticket without --holder-key goes as a Bearer token.
When the server asks for a nonce (use_dpop_nonce), the request is sent
once more with it. The ticket is never sent to a URL its hosts or aud
caveats exclude (the audience is the server's name, by default the URL's
host name as the server side assumes, else --aud), nor after a redirect
to another origin: nothing is sent, and the exit status is 1.

-d sends DATA, or the content of FILE for @FILE (@- for standard
input), as the body, with Content-Type application/x-www-form-urlencoded
unless -H sets one, and makes the default method POST. -H cannot set
Authorization or DPoP: they carry the ticket and its proof.

A response of status 400 or more exits 1: its body is still printed on
standard output, and its status and DPoP or Bearer challenge
(WWW-Authenticate) on standard error.

Example:
  tickettool request --ticket @ticket.txt --holder-key agent.jwk \
      -H 'Content-Type: application/json' -d '{"summary":"..."}' \
      https://api.example.org/notes
`

func runRequest(e *env, args []string) error {
	fs := newFlags(e, "request", requestUsage)
	method := fs.String("X", "", "the request `METHOD` (default GET, or POST with -d)")
	var headers stringList
	fs.Var(&headers, "H", "a request header `NAME: VALUE` (repeatable)")
	data := fs.String("d", "", "the body: `DATA`, or @FILE (@- for standard input)")
	ticketArg := fs.String("ticket", "", "the `TICKET` (its text, - for standard input, or @PATH)")
	holderKey := fs.String("holder-key", "", "`HOLDER` private JWK, for a bound ticket's proofs")
	aud := fs.String("aud", "", "the server's `NAME` for aud caveats (default the URL's host name)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("request takes one URL (got %d arguments)", len(pos))
	}
	if *ticketArg == "" {
		return usageErr("request needs --ticket TICKET")
	}
	req, err := e.newRequest(*method, pos[0], headers, *data, isSet(fs.FlagSet, "d"))
	if err != nil {
		return err
	}
	_, t, err := e.ticketArg(*ticketArg)
	if err != nil {
		return err
	}
	var holder *key.Holder
	if *holderKey != "" {
		if holder, err = readHolderKey(*holderKey, "--holder-key"); err != nil {
			return err
		}
	}
	opts := dpophttp.ClientOptions{Now: func() time.Time { return e.now }}
	if *aud != "" {
		opts.Audience = func(string) string { return *aud }
	}
	tr, err := dpophttp.NewTransport(t, holder, opts)
	if errors.Is(err, dpophttp.ErrHolderKey) {
		return fail(exitUsage, err, "the ticket is bound to a holder key: pass that key's private JWK with --holder-key")
	}
	if err != nil {
		return fail(exitRefused, err)
	}
	return e.send(&http.Client{Transport: tr}, req)
}

// isSet reports whether the flag name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// newRequest builds the request the flags describe.
func (e *env) newRequest(method, rawURL string, headers []string, data string, hasData bool) (*http.Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageErr("request needs an absolute http or https URL (got %s)", quoteArg(rawURL))
	}
	var body []byte
	if hasData {
		if body, err = e.dataArg(data); err != nil {
			return nil, err
		}
	}
	if method == "" {
		method = map[bool]string{false: "GET", true: "POST"}[hasData]
	}
	var rd io.Reader
	if hasData {
		rd = bytes.NewReader(body) // sets GetBody: the body can be sent again for a nonce
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u.String(), rd)
	if err != nil {
		return nil, usageErr("request: invalid method %s", quoteArg(method))
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n"):
			return nil, usageErr("-H takes 'NAME: VALUE' (got %s)", quoteArg(h))
		case strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "DPoP"):
			return nil, usageErr("-H cannot set %s: it carries the ticket or its proof", name)
		case strings.EqualFold(name, "Host"):
			req.Host = value
		default:
			req.Header.Add(name, value)
		}
	}
	if hasData && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req, nil
}

// dataArg returns the body -d names: DATA, or the content of FILE for
// @FILE, or standard input for @-, exactly as read.
func (e *env) dataArg(d string) ([]byte, error) {
	switch {
	case d == "@-":
		s, err := e.readStdin("the body")
		return []byte(s), err
	case strings.HasPrefix(d, "@"):
		return readFile(d[1:], "the body")
	}
	return []byte(d), nil
}

// send sends req, copies the response body to standard output and
// decides the exit status: a status of 400 or more refuses, naming the
// status and the challenge.
func (e *env) send(c *http.Client, req *http.Request) error {
	ctx, cancel := context.WithTimeout(req.Context(), requestTimeout)
	defer cancel()
	resp, err := c.Do(req.WithContext(ctx))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = fmt.Errorf("%s %s: %w", req.Method, redactURL(req.URL), ue.Err)
		}
		return fail(exitRefused, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(e.stdout, resp.Body); err != nil {
		return fail(exitRefused, fmt.Errorf("reading the response: %v", err))
	}
	if resp.StatusCode < 400 {
		return nil
	}
	var hints []string
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		hints = append(hints, "WWW-Authenticate: "+string(escape.Controls(nil, []byte(v))))
	}
	return fail(exitRefused, fmt.Errorf("the server answered %s", escape.Controls(nil, []byte(resp.Status))), hints...)
}

// redactURL is u without userinfo and query, as an error shows it.
func redactURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment = nil, "", false, ""
	return v.String()
}
