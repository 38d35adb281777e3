package mcp

import (
	"encoding/json"
	"errors"
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

// ToolArgs names the subject-carrying arguments of one tool. Each named
// argument that is present must have the stated JSON type, or the call is
// refused as invalid params; an absent (or null) argument adds no subject.
type ToolArgs struct {
	Paths     []string // arguments holding one path (a JSON string)
	PathLists []string // arguments holding a list of paths (an array of strings)
	URLs      []string // arguments holding one URL (a JSON string)
	URLLists  []string // arguments holding a list of URLs (an array of strings)
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
// argument order, or an error naming an argument of the wrong type or one
// whose name is a subject argument's name in another case.
func (p *Profile) subjects(tool string, args map[string]json.RawMessage) (paths, urls []string, err error) {
	spec, ok := p.Tools[tool]
	if !ok {
		return nil, nil, nil
	}
	names := slices.Concat(spec.Paths, spec.PathLists, spec.URLs, spec.URLLists)
	if err := checkAliases("argument", args, names...); err != nil {
		return nil, nil, err
	}
	if paths, err = collect(args, spec.Paths, spec.PathLists, paths); err != nil {
		return nil, nil, err
	}
	if urls, err = collect(args, spec.URLs, spec.URLLists, urls); err != nil {
		return nil, nil, err
	}
	return paths, urls, nil
}

func collect(args map[string]json.RawMessage, one, lists []string, out []string) ([]string, error) {
	out, err := argsubject.Collect(args, one, lists, out)
	if err != nil {
		return nil, errors.New("mcp: " + strings.TrimPrefix(err.Error(), "argsubject: "))
	}
	return out, nil
}

func present(args map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	return argsubject.Present(args, name)
}
