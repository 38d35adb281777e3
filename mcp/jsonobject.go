package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tickettool/tickettool/internal/jcs"
)

// Every message the guard relays is split into its members several times
// (the call policy, the listener, the upstream's routing), so the split is
// on the hot path of every call. encoding/json stays the judge of what is
// JSON: json.Valid checks the whole text first, with its grammar and its
// nesting limit, and only text it accepts is split here, by a scanner that
// needs to find nothing but where strings, names and values end. Names are
// decoded as encoding/json decodes them (escapes, invalid UTF-8 as
// U+FFFD), by encoding/json itself whenever a name holds an escape or a
// byte that is not valid UTF-8. FuzzSplitObject holds both splits to the
// decoders they replace: json.Decoder token by token (strictObject) and
// json.Unmarshal into a map (looseObject).

var errNotJSON = errors.New("mcp: not valid JSON")

// smallObject is how many members are checked for duplicates pairwise;
// larger objects use a map of folded names.
const smallObject = 16

// strictObject decodes a JSON object into its members, refusing anything
// else and names that collide under case folding (jcs.FoldName).
func strictObject(data []byte) (map[string]json.RawMessage, error) {
	return splitObject(data, true)
}

// looseObject decodes a JSON object into its members as json.Unmarshal
// into a map does: names compared byte for byte, the last of duplicates
// kept. JSON null is not an object here.
func looseObject(data []byte) (map[string]json.RawMessage, error) {
	return splitObject(data, false)
}

// memberObject is strictObject (strict) or looseObject for raw, a member
// value an earlier split returned: json.Valid accepted it with the whole
// text, so it is not checked again (the scan still never reads past raw).
func memberObject(raw json.RawMessage, strict bool) (map[string]json.RawMessage, error) {
	return split(raw, strict, false)
}

func splitObject(data []byte, strict bool) (map[string]json.RawMessage, error) {
	return split(data, strict, true)
}

func split(data []byte, strict, check bool) (map[string]json.RawMessage, error) {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return nil, errNotObject
	}
	if check && !json.Valid(data) {
		return nil, errNotJSON
	}
	// The members are slices of data (capped, so that appending to one
	// cannot overwrite the next): a caller whose buffer is reused clones
	// it first (parseMessage does).
	b := data
	fields := make(map[string]json.RawMessage, 8)
	var names [smallObject]string
	var folded map[string]struct{}
	n := 0
	for i = skipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		end := stringEnd(b, i)
		if end < 0 {
			return nil, errNotJSON
		}
		name := decodeName(b[i:end])
		i = skipSpace(b, skipSpace(b, end)+1) // past the ':'
		vend := valueEnd(b, i)
		if vend < 0 {
			return nil, errNotJSON
		}
		if strict {
			if dupName(name, names[:min(n, smallObject)], &folded, n) {
				return nil, errDupKey
			}
			if n < smallObject {
				names[n] = name
			}
			n++
		}
		fields[name] = b[i:vend:vend]
		if i = skipSpace(b, vend); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i >= len(b) {
		return nil, errNotJSON
	}
	return fields, nil
}

// dupName reports whether name equals, under case folding, one of the n
// names before it: pairwise among the first smallObject, through folded
// (built on first need) past them.
func dupName(name string, small []string, folded *map[string]struct{}, n int) bool {
	if n < smallObject {
		for _, prev := range small {
			if foldEqual(prev, name) {
				return true
			}
		}
		return false
	}
	if *folded == nil {
		*folded = make(map[string]struct{}, 2*smallObject)
		for _, prev := range small {
			(*folded)[jcs.FoldName(prev)] = struct{}{}
		}
	}
	f := jcs.FoldName(name)
	if _, dup := (*folded)[f]; dup {
		return true
	}
	(*folded)[f] = struct{}{}
	return false
}

// foldEqual reports whether jcs.FoldName(a) == jcs.FoldName(b), without
// allocating when both are ASCII (where folding maps only a-z to A-Z).
func foldEqual(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return len(a) == len(b) && strings.EqualFold(a, b)
	}
	return jcs.FoldName(a) == jcs.FoldName(b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// decodeName decodes a JSON string already known to be valid, quotes
// included.
func decodeName(q []byte) string {
	inner := q[1 : len(q)-1]
	if name, ok := commonNames[string(inner)]; ok {
		return name
	}
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	json.Unmarshal(q, &s) // valid: checked by json.Valid
	return s
}

// commonNames are the member names of nearly every message, kept once
// rather than allocated for each (the lookup with string(inner) does not
// allocate).
var commonNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"jsonrpc", "id", "method", "params", "result", "error", "name", "arguments", "_meta",
		"progressToken", "content", "type", "text", "isError", "resultType", "structuredContent", "code", "message",
		"data", "requestId", "protocolVersion", "capabilities", "tools", "uri", "requestState", protocolVersionMeta} {
		m[n] = n
	}
	return m
}()

// commonValues are the string values of nearly every message (methods,
// revisions), likewise.
var commonValues = func() map[string]string {
	m := map[string]string{}
	for _, v := range append([]string{"2.0", "tools/call", "tools/list", "initialize", "notifications/initialized",
		"notifications/progress", "notifications/cancelled", "complete", "input_required", "text"}, knownVersions...) {
		m[v] = v
	}
	return m
}()

// decodeString decodes a JSON string value into s, as json.Unmarshal
// into a string does, and reports whether raw was one.
func decodeString(raw []byte, s *string) bool {
	raw = trimJSON(raw)
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		inner := raw[1 : len(raw)-1]
		if v, ok := commonValues[string(inner)]; ok {
			*s = v
			return true
		}
		if bytes.IndexByte(inner, '\\') < 0 && bytes.IndexByte(inner, '"') < 0 && utf8.Valid(inner) && !hasControl(inner) {
			*s = string(inner)
			return true
		}
	}
	return json.Unmarshal(raw, s) == nil
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string at b[i], or -1
// when b ends first (or b[i] starts no string).
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the JSON value at b[i], or -1
// when b ends first. It finds where a valid value ends; it checks
// nothing else.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j) - 1; j < 0 {
					return -1
				}
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && !endsScalar(b[j]) {
		j++
	}
	return j
}

func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// marshalObject encodes members as marshal encodes the map (json.Encoder
// without HTML escaping): names sorted, each value compacted (a nil one as
// null), without reflection. A name that is not plain printable ASCII is
// quoted by encoding/json.
func marshalObject(m map[string]json.RawMessage) []byte {
	names := make([]string, 0, len(m))
	size := 2
	for k, v := range m {
		names = append(names, k)
		size += len(k) + len(v) + 4
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.Grow(size)
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		writeName(&b, k)
		b.WriteByte(':')
		v := m[k]
		if v == nil {
			b.WriteString("null")
			continue
		}
		if err := json.Compact(&b, v); err != nil {
			// Only values built from already-parsed JSON reach here.
			panic("mcp: encoding a message: " + err.Error())
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeName(b *bytes.Buffer, k string) {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			enc := json.NewEncoder(b)
			enc.SetEscapeHTML(false)
			enc.Encode(k)           // a string always encodes
			b.Truncate(b.Len() - 1) // the Encoder's newline
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(k)
	b.WriteByte('"')
}

// memberSpan returns where the value of the member name lies in data, a
// JSON object that json.Valid accepted; false when name is not a member,
// or is one more than once.
func memberSpan(data []byte, name string) (start, end int, ok bool) {
	for i := skipSpace(data, skipSpace(data, 0)+1); i < len(data) && data[i] != '}'; {
		nend := stringEnd(data, i)
		if nend < 0 {
			return 0, 0, false
		}
		n := decodeName(data[i:nend])
		i = skipSpace(data, skipSpace(data, nend)+1) // past the ':'
		vend := valueEnd(data, i)
		if vend < 0 {
			return 0, 0, false
		}
		if n == name {
			if ok {
				return 0, 0, false
			}
			start, end, ok = i, vend, true
		}
		if i = skipSpace(data, vend); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return start, end, ok
}

// replaceMember returns data, a JSON object that json.Valid accepted, with
// the value of its one member name replaced by value (valid JSON) and
// every other byte as it was; false when name is not exactly one member.
func replaceMember(data []byte, name string, value []byte) ([]byte, bool) {
	s, e, ok := memberSpan(data, name)
	if !ok {
		return nil, false
	}
	out := make([]byte, 0, len(data)-(e-s)+len(value))
	return append(append(append(out, data[:s]...), value...), data[e:]...), true
}
