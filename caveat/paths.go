package caveat

import "strings"

// A path is normal when it is "/" or is made of non-empty segments other
// than "." and ".." separated by single "/", optionally with one leading
// "/" (absolute) and one trailing "/", in valid UTF-8 without NUL,
// backslash or non-printing characters. Requests must carry normal paths:
// anything else is refused, never cleaned into something else.

// pathProblem returns why p is not a normal path, or "".
func pathProblem(p string) string {
	if p == "" {
		return "is empty"
	}
	if why := printProblem(p); why != "" {
		return why
	}
	if strings.IndexByte(p, '\\') >= 0 {
		return "contains a backslash"
	}
	if p == "/" {
		return ""
	}
	body := p
	if body[0] == '/' {
		body = body[1:]
	}
	if body != "" && body[len(body)-1] == '/' {
		body = body[:len(body)-1]
	}
	for {
		i := strings.IndexByte(body, '/')
		seg := body
		if i >= 0 {
			seg = body[:i]
		}
		switch seg {
		case "":
			return "has an empty segment"
		case ".", "..":
			return "has a " + seg + " segment"
		}
		if i < 0 {
			return ""
		}
		body = body[i+1:]
	}
}

// prefixProblem returns why s is not a canonical path prefix, or "": a
// normal path ending in "/" with no comma (the text form's separator) and
// no segment starting or ending with a space (which the text form would
// make ambiguous next to a comma).
func prefixProblem(s string) string {
	if s == "" || s[len(s)-1] != '/' {
		return "must end with /"
	}
	if why := pathProblem(s); why != "" {
		return why
	}
	if strings.IndexByte(s, ',') >= 0 {
		return "contains a comma"
	}
	if strings.Contains(s, " /") || strings.Contains(s, "/ ") || s[0] == ' ' {
		return "has a segment starting or ending with a space"
	}
	return ""
}

// pathAdmitted reports whether some prefix of the sorted list is an
// ancestor-or-self of the normal path p on a segment boundary. It looks up
// each ancestor of p (one per segment) by binary search; relative
// prefixes only ever match relative paths and absolute ones absolute
// paths, since every candidate starts with p's first byte.
func pathAdmitted(list []string, p string) bool {
	for i := strings.IndexByte(p, '/'); i >= 0; {
		if contains(list, p[:i+1]) {
			return true
		}
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if p[len(p)-1] != '/' {
		return containsJoined(list, p, "/")
	}
	return false
}

// underText renders the prefixes a path failed to lie under.
func underText(list []string) string {
	if len(list) == 1 {
		return show(list[0])
	}
	return "any of " + listText(Paths, list)
}
