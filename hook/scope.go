package hook

import (
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

// scope is what the hook reads of a ticket's caveats before the guard
// verifies it: it only ever refuses a call or adds subjects for the
// guard to check, and the guard refuses every call of a ticket whose
// chain does not verify, so nothing read here can allow a call.
type scope struct {
	tools []caveat.Caveat
	paths []string // the last paths caveat's prefixes: the narrowest, since no block widens
	hosts []string // the last hosts caveat's patterns
}

func unverifiedScope(t *token.Ticket) *scope {
	sc := &scope{}
	for _, b := range t.UnverifiedBlocks() {
		for _, c := range b.Caveats {
			switch c.Kind {
			case caveat.Tools:
				sc.tools = append(sc.tools, c)
			case caveat.Paths:
				sc.paths = c.List
			case caveat.Hosts:
				sc.hosts = c.List
			}
		}
	}
	return sc
}

// names reports whether the ticket names tool: it has a tools caveat, and
// every one admits tool.
func (sc *scope) names(tool string) bool {
	if len(sc.tools) == 0 {
		return false
	}
	req := caveat.Request{Tool: tool}
	for _, c := range sc.tools {
		if c.Evaluate(&req, time.Time{}, 0) != nil {
			return false
		}
	}
	return true
}

// fill gives a call the ticket names the subjects it lacks: a tool with
// no path (a shell, a web search, a fetch) is checked as touching the
// ticket's narrowest paths, one with no URL (a file tool, a shell) as
// reaching its narrowest hosts. The person who named the tool in tools=
// granted it within the ticket's scope; without that, the paths and
// hosts caveats refuse a call that has no subject of theirs.
func (sc *scope) fill(req *caveat.Request) {
	if len(req.Paths) == 0 && len(sc.paths) > 0 {
		req.Paths = sc.paths
	}
	if len(req.URLs) == 0 && len(sc.hosts) > 0 {
		for _, h := range sc.hosts {
			req.URLs = append(req.URLs, "https://"+strings.Replace(h, "*", "x", 1)+"/")
		}
	}
}
