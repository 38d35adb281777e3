package strictjson

// EachMember calls f with the unescaped name and the value text of each
// member of the JSON object v, in order, until f returns false; it
// reports whether v is an object and f never returned false. v must have
// passed the lexical rules already (values are skipped, nested at most
// MaxDepth below v).
func EachMember(v []byte, f func(name, value []byte) bool) bool {
	p := Scanner{B: v}
	p.WS()
	if !p.Eat('{') {
		return false
	}
	for p.WS(); !p.Eat('}'); p.Eat(',') {
		p.WS()
		name, ok := p.Str()
		if p.WS(); !ok || !p.Eat(':') {
			return false
		}
		p.WS()
		start := p.I
		if !p.Skip(1) || !f(name, v[start:p.I]) {
			return false
		}
		p.WS()
	}
	return true
}

// StringValue returns the unescaped contents of v when v is the text of
// one JSON string.
func StringValue(v []byte) ([]byte, bool) {
	if len(v) == 0 || v[0] != '"' {
		return nil, false
	}
	p := Scanner{B: v}
	s, ok := p.Str()
	return s, ok && p.I == len(v)
}

// Object reports whether b is one JSON object, optionally surrounded by
// whitespace, held to the lexical rules of spec/FORMAT.md §4.5 step 2:
// valid UTF-8, no lone surrogate escapes, no value nested deeper than
// MaxDepth (a member's value is depth 1), no object with two members
// named alike (compared after unescaping) at any depth.
func Object(b []byte) bool {
	p := Scanner{B: b, Dups: true}
	p.WS()
	if p.I >= len(p.B) || p.B[p.I] != '{' || !p.Skip(0) {
		return false
	}
	p.WS()
	return p.I == len(p.B)
}
