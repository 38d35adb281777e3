package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tickettool/tickettool/internal/argsubject"
)

// Profile says which arguments of a server's tools carry a path or a URL,
// so that the proxy can check them against a ticket's paths and hosts
// caveats. Tools are named as the server names them (unqualified).
//
// A tool missing from the profile carries no subject: under a ticket with a
// paths or hosts caveat every call to it is refused (a caveat that needs a
// subject refuses a call without one), so an unknown tool fails closed.
type Profile struct {
	Name  string
	Tools map[string]ToolArgs
	// AbsolutePaths refuses a call with a relative path (or one starting
	// with ~) as invalid params: the server resolves such a path against a
	// directory the guard cannot know. When false, relative paths are
	// resolved against Config.Dir, the server's working directory.
	AbsolutePaths bool
}

// ToolArgs names the subject-carrying arguments of one tool: each entry is
// a top-level argument's name or, starting with "/", a JSON pointer (RFC
// 6901) into the arguments, through objects. Each named argument that is
// present must have the stated JSON type, or the call is refused; an
// absent (or null) argument adds no subject.
type ToolArgs struct {
	Paths     []string // arguments holding one path (a JSON string)
	PathLists []string // arguments holding a list of paths (an array of strings)
	URLs      []string // arguments holding one URL (a JSON string)
	URLLists  []string // arguments holding a list of URLs (an array of strings)
	Hosts     []string // arguments holding one host name, checked as https://HOST/
	// ReadOnly marks a tool that cannot change the filesystem. A call to
	// any other tool (and to a tool the profile does not know) is in flight
	// alone: no other call is checked until the server answered it.
	ReadOnly bool
	// ListsDirectories marks a tool without arguments that answers with
	// the server's allowed directories, in the reference filesystem
	// server's form. Under a paths caveat it is checked as touching the
	// ticket's narrowest paths, and its answer keeps only what lies inside
	// them.
	ListsDirectories bool
}

// Filesystem returns the profile of the reference MCP filesystem server
// (@modelcontextprotocol/server-filesystem 2026.8.31): every path argument
// of its fourteen tools, which of them only read, and its list of allowed
// directories. The server resolves a relative path against its allowed
// directories, which roots can replace at any time, so relative paths are
// refused (AbsolutePaths).
func Filesystem() *Profile {
	path := ToolArgs{Paths: []string{"path"}}
	read := ToolArgs{Paths: []string{"path"}, ReadOnly: true}
	return &Profile{Name: "filesystem", AbsolutePaths: true, Tools: map[string]ToolArgs{
		"read_file":                 read, // deprecated alias of read_text_file
		"read_text_file":            read,
		"read_media_file":           read,
		"read_multiple_files":       {PathLists: []string{"paths"}, ReadOnly: true},
		"write_file":                path,
		"edit_file":                 path,
		"create_directory":          path,
		"list_directory":            read,
		"list_directory_with_sizes": read,
		"directory_tree":            read,
		"move_file":                 {Paths: []string{"source", "destination"}},
		"search_files":              read,
		"get_file_info":             read,
		"list_allowed_directories":  {ReadOnly: true, ListsDirectories: true},
	}}
}

// subjects returns the paths and URLs a call carries under the profile, in
// the order of the profile's lists (paths, path lists; URLs, URL lists,
// hosts), or an error naming an argument of the wrong type or, as an
// *aliasError, one whose name is a subject argument's name in another
// case, at any level a pointer passes through.
func (p *Profile) subjects(tool string, args map[string]json.RawMessage) (paths, urls []string, err error) {
	spec, ok := p.Tools[tool]
	if !ok {
		return nil, nil, nil
	}
	var top []string
	for _, e := range slices.Concat(spec.Paths, spec.PathLists, spec.URLs, spec.URLLists, spec.Hosts) {
		if !strings.HasPrefix(e, "/") {
			top = append(top, e)
		}
	}
	if err := checkAliases("argument", args, top...); err != nil {
		return nil, nil, err
	}
	if paths, err = collect(args, spec.Paths, spec.PathLists, paths); err != nil {
		return nil, nil, err
	}
	if urls, err = collect(args, spec.URLs, spec.URLLists, urls); err != nil {
		return nil, nil, err
	}
	hosts, err := collect(args, spec.Hosts, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, h := range hosts {
		if !validHost(h) {
			return nil, nil, fmt.Errorf("mcp: a host argument must be a host name with an optional port, not %q", h)
		}
		urls = append(urls, "https://"+h+"/")
	}
	return paths, urls, nil
}

// validHost reports whether s is a host name, with an optional :port, and
// nothing else (no scheme, user, path or IPv6 literal), so that the URL
// the hosts caveat checks names the host the server will reach.
func validHost(s string) bool {
	host, port, hasPort := strings.Cut(s, ":")
	if host == "" || len(s) > 255 || hasPort && (port == "" || len(port) > 5) {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// collect appends the subjects of the entries in one (each a string) and
// lists (each an array of strings): an entry is a top-level argument's
// name, or a JSON pointer into the arguments.
func collect(args map[string]json.RawMessage, one, lists []string, out []string) ([]string, error) {
	resolve := func(entries []string) (map[string]json.RawMessage, []string, error) {
		vals, names := map[string]json.RawMessage{}, []string{}
		for _, e := range entries {
			raw, ok, err := lookup(args, e)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				vals[e] = raw
			}
			names = append(names, e)
		}
		return vals, names, nil
	}
	vOne, nOne, err := resolve(one)
	if err != nil {
		return nil, err
	}
	vLists, nLists, err := resolve(lists)
	if err != nil {
		return nil, err
	}
	if out, err = argsubject.Collect(vOne, nOne, nil, out); err == nil {
		out, err = argsubject.Collect(vLists, nil, nLists, out)
	}
	if err != nil {
		return nil, errors.New("mcp: " + strings.TrimPrefix(err.Error(), "argsubject: "))
	}
	return out, nil
}

// lookup finds an entry's value: a top-level argument by name, or a JSON
// pointer's member through objects, each of which must be an object whose
// names are unique under case folding and hold no look-alike of the next
// token. Absent or null is not found.
func lookup(args map[string]json.RawMessage, entry string) (json.RawMessage, bool, error) {
	if !strings.HasPrefix(entry, "/") {
		raw, ok := present(args, entry)
		return raw, ok, nil
	}
	tokens, err := pointerTokens(entry)
	if err != nil {
		return nil, false, err
	}
	cur := args
	for i, tok := range tokens {
		if err := checkAliases("argument", cur, tok); err != nil {
			return nil, false, err
		}
		raw, ok := present(cur, tok)
		if !ok {
			return nil, false, nil
		}
		if i == len(tokens)-1 {
			return raw, true, nil
		}
		if cur, err = strictObject(raw); err != nil {
			return nil, false, fmt.Errorf("mcp: argument %q must be an object", "/"+strings.Join(tokens[:i+1], "/"))
		}
	}
	return nil, false, nil
}

func present(args map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	return argsubject.Present(args, name)
}
