package mcp

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
)

// A profile's text form is a JSON object (see profiles/*.json):
//
//	{
//	  "name": "everything",
//	  "absolutePaths": false,
//	  "tools": {
//	    "gzip-file-as-resource": {"urls": ["/data"], "readOnly": true},
//	    "move_file": {"paths": ["/source", "/destination"]}
//	  }
//	}
//
// Each tool lists the JSON pointers (RFC 6901) of its subject-carrying
// arguments, relative to params.arguments: "paths" and "urls" point at a
// string, "pathLists" and "urlLists" at an array of strings, "hosts" at a
// host name (a string, checked by hosts caveats as https://HOST/). A
// pointer passes through objects only. "readOnly" and "listsDirectories"
// are ToolArgs' fields of those names. No other member is allowed.

//go:embed profiles/*.json
var shippedProfiles embed.FS

// profileText is the text form of a Profile.
type profileText struct {
	Name          string              `json:"name"`
	AbsolutePaths bool                `json:"absolutePaths,omitempty"`
	Tools         map[string]toolText `json:"tools"`
}

type toolText struct {
	Paths            []string `json:"paths,omitempty"`
	PathLists        []string `json:"pathLists,omitempty"`
	URLs             []string `json:"urls,omitempty"`
	URLLists         []string `json:"urlLists,omitempty"`
	Hosts            []string `json:"hosts,omitempty"`
	ReadOnly         bool     `json:"readOnly,omitempty"`
	ListsDirectories bool     `json:"listsDirectories,omitempty"`
}

var profileName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// ParseProfile reads a profile's text form. It refuses unknown members,
// a name that is not 1 to 64 of [A-Za-z0-9_.-], a pointer that is not an
// RFC 6901 pointer to a member ("/name", "/outer/inner"), and a tool that
// names one argument twice.
func ParseProfile(data []byte) (*Profile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var pt profileText
	if err := dec.Decode(&pt); err != nil {
		return nil, fmt.Errorf("mcp: profile: %v", err)
	}
	if dec.More() {
		return nil, errors.New("mcp: profile: data after the JSON object")
	}
	if !profileName.MatchString(pt.Name) {
		return nil, fmt.Errorf("mcp: profile name %q: use 1 to 64 of A-Z a-z 0-9 _ . -", pt.Name)
	}
	p := &Profile{Name: pt.Name, AbsolutePaths: pt.AbsolutePaths, Tools: map[string]ToolArgs{}}
	for tool, tt := range pt.Tools {
		all := slices.Concat(tt.Paths, tt.PathLists, tt.URLs, tt.URLLists, tt.Hosts)
		ta := ToolArgs{ReadOnly: tt.ReadOnly, ListsDirectories: tt.ListsDirectories}
		lists := []*[]string{&ta.Paths, &ta.PathLists, &ta.URLs, &ta.URLLists, &ta.Hosts}
		for i, ptrs := range [][]string{tt.Paths, tt.PathLists, tt.URLs, tt.URLLists, tt.Hosts} {
			for _, ptr := range ptrs {
				tokens, err := pointerTokens(ptr)
				if err != nil {
					return nil, fmt.Errorf("mcp: profile %s tool %q: %v", pt.Name, tool, err)
				}
				if count(all, ptr) > 1 {
					return nil, fmt.Errorf("mcp: profile %s tool %q: pointer %q is listed twice", pt.Name, tool, ptr)
				}
				if len(tokens) == 1 && !strings.HasPrefix(tokens[0], "/") {
					// A top-level argument: its name. A name starting with
					// "/" stays a pointer, which ToolArgs reads as one.
					ptr = tokens[0]
				}
				*lists[i] = append(*lists[i], ptr)
			}
		}
		p.Tools[tool] = ta
	}
	return p, nil
}

// pointerTokens splits an RFC 6901 JSON pointer to a member into its
// unescaped reference tokens; the empty pointer (the whole arguments) is
// refused.
func pointerTokens(ptr string) ([]string, error) {
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer (RFC 6901): it must start with /", ptr)
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		if strings.Contains(strings.NewReplacer("~0", "", "~1", "").Replace(p), "~") {
			return nil, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", ptr)
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// String renders the profile's text form, which ParseProfile reads back.
func (p *Profile) String() string {
	pt := profileText{Name: p.Name, AbsolutePaths: p.AbsolutePaths, Tools: map[string]toolText{}}
	ptrs := func(names []string) []string {
		var out []string
		for _, n := range names {
			if !strings.HasPrefix(n, "/") {
				n = "/" + strings.ReplaceAll(strings.ReplaceAll(n, "~", "~0"), "/", "~1")
			}
			out = append(out, n)
		}
		return out
	}
	for name, ta := range p.Tools {
		pt.Tools[name] = toolText{Paths: ptrs(ta.Paths), PathLists: ptrs(ta.PathLists), URLs: ptrs(ta.URLs),
			URLLists: ptrs(ta.URLLists), Hosts: ptrs(ta.Hosts), ReadOnly: ta.ReadOnly, ListsDirectories: ta.ListsDirectories}
	}
	b, err := json.MarshalIndent(pt, "", "  ")
	if err != nil {
		panic("mcp: encoding a profile: " + err.Error())
	}
	return string(b) + "\n"
}

// ShippedProfile returns the profile shipped under name (ShippedProfiles
// lists them): the reference servers the guard is tested with.
func ShippedProfile(name string) (*Profile, error) {
	data, err := shippedProfiles.ReadFile("profiles/" + name + ".json")
	if err != nil || !profileName.MatchString(name) {
		return nil, fmt.Errorf("mcp: no shipped profile %q (shipped: %s)", name, strings.Join(ShippedProfiles(), ", "))
	}
	return ParseProfile(data)
}

// ShippedProfiles lists the names of the shipped profiles, sorted.
func ShippedProfiles() []string {
	entries, _ := fs.ReadDir(shippedProfiles, "profiles")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	return names
}

func count(list []string, s string) int {
	n := 0
	for _, e := range list {
		if e == s {
			n++
		}
	}
	return n
}
