package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/tickettool/tickettool/mcp"
)

// upstreamAuthEnv, when set, is the Authorization header that mcp and
// proxy send to their --upstream server: its own credential, never the
// ticket.
const upstreamAuthEnv = "TICKETTOOL_UPSTREAM_AUTHORIZATION"

// maxHeaderFileBytes bounds an --upstream-header-file.
const maxHeaderFileBytes = 64 << 10

// upstreamOf builds the --upstream server: its URL, and its headers from
// the header file and the environment. Credentials never come from the
// command line, where every local user can read them.
func upstreamOf(rawURL, headerFile string) (*mcp.Upstream, error) {
	up := &mcp.Upstream{URL: rawURL, Header: http.Header{}}
	if headerFile != "" {
		h, err := readHeaderFile(headerFile)
		if err != nil {
			return nil, err
		}
		up.Header = h
	}
	if v := os.Getenv(upstreamAuthEnv); v != "" {
		if up.Header.Get("Authorization") != "" {
			return nil, usageErr("the upstream's Authorization comes from both %s and --upstream-header-file: give it once", upstreamAuthEnv)
		}
		up.Header.Set("Authorization", v)
	}
	if err := up.Validate(); err != nil {
		return nil, usageErr("--upstream: %v", strings.TrimPrefix(err.Error(), "mcp: "))
	}
	return up, nil
}

// readHeaderFile reads "Name: value" lines (blank lines and lines starting
// with # are skipped). An error names the line, never its value: the
// values are credentials.
func readHeaderFile(path string) (http.Header, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("--upstream-header-file: %v", err)
	}
	if len(b) > maxHeaderFileBytes {
		return nil, usageErr("--upstream-header-file %s is longer than %d bytes", quoteArg(path), maxHeaderFileBytes)
	}
	h := http.Header{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxHeaderFileBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) != name || name == "" {
			return nil, usageErr("--upstream-header-file %s line %d: want NAME: VALUE (the value is not shown)", quoteArg(path), n)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// serveUpstream runs the guard between the agent on standard input and
// output and the --upstream server until the agent's input ends.
func serveUpstream(e *env, p *mcp.Proxy, up *mcp.Upstream) error {
	ctx, stoppedBy, stop := cancelOnSignal()
	defer stop()
	err := p.ServeUpstream(ctx, e.stdin, e.stdout, up)
	select {
	case s := <-stoppedBy:
		return &cliError{code: 128 + sigNumber(s), notice: true, err: fmt.Errorf("stopped by %s", sigName(s))}
	default:
	}
	if err != nil {
		return fail(exitRefused, err)
	}
	return nil
}

// profileOf is the server profile --profile or --profile-file names; nil
// (the filesystem server's) when neither.
func profileOf(name, file string) (*mcp.Profile, error) {
	switch {
	case name != "" && file != "":
		return nil, usageErr("give --profile or --profile-file, not both")
	case name != "":
		p, err := mcp.ShippedProfile(name)
		if err != nil {
			return nil, usageErr("--profile: %v", strings.TrimPrefix(err.Error(), "mcp: "))
		}
		return p, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usageErr("--profile-file: %v", err)
		}
		p, err := mcp.ParseProfile(b)
		if err != nil {
			return nil, usageErr("--profile-file %s: %v", quoteArg(file), strings.TrimPrefix(err.Error(), "mcp: "))
		}
		return p, nil
	}
	return nil, nil
}
