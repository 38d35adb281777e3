package caveat_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"pgregory.net/rapid"
)

// The reference models below restate the matching rules as plainly as
// possible (linear scans, string building); Check, with its binary
// searches over ancestors and label suffixes, must agree with them.

func modelTool(list []string, tool string) bool {
	if tool == "" || strings.Count(tool, "/") > 1 || strings.HasPrefix(tool, "/") || strings.HasSuffix(tool, "/") {
		return false
	}
	for _, e := range list {
		if e == tool || !strings.Contains(e, "/") && strings.HasSuffix(tool, "/"+e) {
			return true
		}
	}
	return false
}

func modelPath(list []string, p string) bool {
	if p == "" || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	if p != "/" {
		body := strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/")
		for _, seg := range strings.Split(body, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return false
			}
		}
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	for _, e := range list {
		if strings.HasPrefix(p, e) {
			return true
		}
	}
	return false
}

func modelHost(list []string, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Hostname() == "" {
		return false
	}
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, label := range strings.Split(h, ".") {
		if label == "" {
			return false
		}
	}
	for _, e := range list {
		if e == h || strings.HasPrefix(e, "*.") && strings.HasSuffix(h, e[1:]) && len(h) > len(e)-1 {
			return true
		}
	}
	return false
}

func all(xs []string, f func(string) bool) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

func TestPropCheckMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := draw(t, rapid.SampledFrom([]caveat.Kind{caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Audience}))
		c := genCaveat(t, k)
		for range 20 {
			checkModel(t, c, genRequest(t, c))
		}
	})
}

func checkModel(t *rapid.T, c caveat.Caveat, r *caveat.Request) {
	k := c.Kind
	var want bool
	switch k {
	case caveat.Tools:
		want = modelTool(c.List, r.Tool)
	case caveat.Ops:
		want = slices.Contains(c.List, r.Op)
	case caveat.Audience:
		want = slices.Contains(c.List, r.Audience)
	case caveat.Paths:
		want = all(r.Paths, func(p string) bool { return modelPath(c.List, p) })
	case caveat.Hosts:
		want = all(r.URLs, func(u string) bool { return modelHost(c.List, u) })
	}
	if got := c.Evaluate(r, now, 0) == nil; got != want {
		t.Fatalf("%s on %+v: Check allows = %v, model says %v", c, *r, got, want)
	}
}

// Narrowing of paths and hosts agrees with its model: a prefix lies under
// another when it starts with it; a pattern is covered when every host it
// matches is matched by the parent list (checked on hosts built from it).
func TestPropNarrowMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := draw(t, rapid.SampledFrom([]caveat.Kind{caveat.Paths, caveat.Hosts}))
		p := genCaveat(t, k)
		c := derive(t, p)
		var want bool
		switch k {
		case caveat.Paths:
			want = all(c.List, func(e string) bool {
				return slices.ContainsFunc(p.List, func(q string) bool { return strings.HasPrefix(e, q) })
			})
		case caveat.Hosts:
			want = all(c.List, func(e string) bool {
				if wild, ok := strings.CutPrefix(e, "*."); ok {
					return slices.ContainsFunc(p.List, func(q string) bool {
						s, qw := strings.CutPrefix(q, "*.")
						return qw && (wild == s || strings.HasSuffix(wild, "."+s))
					})
				}
				return modelHost(p.List, "https://"+e+"/")
			})
		}
		var s caveat.Scope
		_ = s.Add(0, p)
		if got := s.Add(0, c) == nil; got != want {
			t.Fatalf("%s after %s: accepted = %v, model says %v", c, p, got, want)
		}
	})
}
