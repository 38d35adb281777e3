package caveat

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/printable"
)

// listProblem returns why list is not a valid list of kind k as a decoded
// or hand-built caveat must be (canonical entries, sorted, unique), or "".
func listProblem(k Kind, list []string) string {
	if len(list) == 0 {
		return "list is empty"
	}
	if len(list) > maxEntries {
		return "list has more than 1024 entries"
	}
	for i, e := range list {
		if why := entryProblem(k, e); why != "" {
			return show(e) + " " + why
		}
		if i > 0 && list[i-1] >= e {
			return "entries are not sorted bytewise and unique"
		}
	}
	return ""
}

// entryProblem returns why e is not a canonical entry of kind k, or "".
func entryProblem(k Kind, e string) string {
	if len(e) > maxTextBytes {
		return "is longer than 1024 bytes"
	}
	switch k {
	case Tools:
		if !validTool(e) {
			return "is not a tool name: want name or server/name, each 1-128 of [A-Za-z0-9_.-]"
		}
	case Ops:
		if !validOp(e) {
			return "is not an op: want [a-z][a-z0-9_-]{0,63}"
		}
	case Audience:
		if !validAud(e) {
			return "is not an audience: want 1-128 of [A-Za-z0-9._:/-]"
		}
	case Paths:
		return prefixProblem(e)
	case Hosts:
		return patternProblem(e)
	}
	return ""
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

func validToolPart(s string) bool {
	if len(s) == 0 || len(s) > maxToolPart {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; !isAlnum(b) && b != '_' && b != '.' && b != '-' {
			return false
		}
	}
	return true
}

// validTool reports whether s is "name" or "server/name" (MCP's tool-name
// alphabet, at most one "/").
func validTool(s string) bool {
	if server, name, ok := strings.Cut(s, "/"); ok {
		return validToolPart(server) && validToolPart(name)
	}
	return validToolPart(s)
}

func validOp(s string) bool {
	if len(s) == 0 || len(s) > maxOp || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if b := s[i]; !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '_' || b == '-') {
			return false
		}
	}
	return true
}

func validAud(s string) bool {
	if len(s) == 0 || len(s) > maxAud {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; !isAlnum(b) && !strings.ContainsRune("._:/-", rune(b)) {
			return false
		}
	}
	return true
}

// printProblem returns why s is not valid UTF-8 made only of printable
// characters (spec/CAVEATS.md: U+0020–U+007E, and the letters, marks,
// numbers, punctuation and symbols of Unicode 15.0.0 in printable.Table,
// pinned so that a newer toolchain does not change which tickets decode),
// or "".
func printProblem(s string) string {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b == 0 {
				return "contains NUL"
			}
			if b < 0x20 || b == 0x7f {
				return "contains a control character"
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return "is not valid UTF-8"
		}
		if !unicode.Is(printable.Table, r) {
			return "contains a non-printing character"
		}
		i += n
	}
	return ""
}

// toolAdmitted reports whether the sorted tools list admits tool: listed
// as is, or, for "server/name", its unqualified name is listed.
func toolAdmitted(list []string, tool string) bool {
	if contains(list, tool) {
		return true
	}
	if i := strings.IndexByte(tool, '/'); i >= 0 {
		return contains(list, tool[i+1:])
	}
	return false
}

// contains reports whether the sorted list holds s.
func contains(list []string, s string) bool {
	_, ok := slices.BinarySearch(list, s)
	return ok
}

// containsJoined reports whether the sorted list holds a+b, by binary
// search and without building a+b.
func containsJoined(list []string, a, b string) bool {
	lo, hi := 0, len(list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareJoined(list[m], a, b) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(list) && compareJoined(list[lo], a, b) == 0
}

// compareJoined compares e with a+b bytewise, like strings.Compare.
func compareJoined(e, a, b string) int {
	if len(e) < len(a) {
		if c := strings.Compare(e, a[:len(e)]); c != 0 {
			return c
		}
		return -1
	}
	if c := strings.Compare(e[:len(a)], a); c != 0 {
		return c
	}
	return strings.Compare(e[len(a):], b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
