// Package argsubject reads the subjects of a tool call (the paths and URLs
// a ticket's paths and hosts caveats are checked against) from its JSON
// arguments, by the argument names a table gives. The MCP guard and the
// coding-agent hook read arguments through it, so that one table means one
// thing at both.
//
// An argument is read only under its exact name; a member whose name is a
// subject argument's name in another Unicode case ("Path", "ſource";
// jcs.FoldName, the folding of the args digest) is an error, since a tool decoding its arguments with Go's encoding/json (or
// any case-insensitive decoder) would act on a path the caller never saw.
package argsubject

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/tickettool/tickettool/internal/jcs"
)

// ErrAlias is matched by the error of an argument named like a subject
// argument in another case.
var ErrAlias = errors.New("argsubject: argument name differs from a subject argument's only in case")

// Spec names the subject-carrying arguments of one tool. Each named
// argument that is present must have the stated JSON type; an absent (or
// null) argument adds no subject.
type Spec struct {
	Paths     []string // arguments holding one path (a JSON string)
	PathLists []string // arguments holding a list of paths (an array of strings)
	URLs      []string // arguments holding one URL (a JSON string)
	URLLists  []string // arguments holding a list of URLs (an array of strings)
}

// Extract returns the paths and URLs args carries under spec, in argument
// order: an error names an argument of the wrong type, or (wrapping
// ErrAlias) one whose name is a subject argument's in another case.
func Extract(spec Spec, args map[string]json.RawMessage) (paths, urls []string, err error) {
	names := slices.Concat(spec.Paths, spec.PathLists, spec.URLs, spec.URLLists)
	if err := CheckAliases(args, names...); err != nil {
		return nil, nil, err
	}
	if paths, err = Collect(args, spec.Paths, spec.PathLists, nil); err != nil {
		return nil, nil, err
	}
	if urls, err = Collect(args, spec.URLs, spec.URLLists, nil); err != nil {
		return nil, nil, err
	}
	return paths, urls, nil
}

// CheckAliases returns an error wrapping ErrAlias for the first member of
// args (in name order) that folds to one of names without being
// byte-equal to it.
func CheckAliases(args map[string]json.RawMessage, names ...string) error {
	found, want := "", ""
	for f := range args {
		if slices.Contains(names, f) {
			continue
		}
		fk := jcs.FoldName(f)
		for _, n := range names {
			if jcs.FoldName(n) == fk && (found == "" || f < found) {
				found, want = f, n
			}
		}
	}
	if found == "" {
		return nil
	}
	return fmt.Errorf("argsubject: argument %q is %q in another case: refused, since a tool may read it as %q: %w",
		found, want, want, ErrAlias)
}

// Collect appends to out the string arguments named in one and the
// elements of the string-array arguments named in lists, in that order.
func Collect(args map[string]json.RawMessage, one, lists []string, out []string) ([]string, error) {
	for _, name := range one {
		raw, ok := Present(args, name)
		if !ok {
			continue
		}
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return nil, fmt.Errorf("argsubject: argument %q must be a string", name)
		}
		out = append(out, s)
	}
	for _, name := range lists {
		raw, ok := Present(args, name)
		if !ok {
			continue
		}
		var elems []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
			return nil, fmt.Errorf("argsubject: argument %q must be an array of strings", name)
		}
		for _, e := range elems {
			var s string
			if len(e) == 0 || e[0] != '"' || json.Unmarshal(e, &s) != nil {
				return nil, fmt.Errorf("argsubject: argument %q must be an array of strings", name)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// Present returns args[name] unless it is absent, empty or null.
func Present(args map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	raw, ok := args[name]
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}
